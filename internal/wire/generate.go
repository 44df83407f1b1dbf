package wire

// The random values of a Generator (codec.go): every size of number as
// often as every other, so that the short varints and the long ones, and
// the edges of a range, all come up in a few hundred draws.

// randBits is a number of up to n bits, each length from 0 to n as likely.
func (c *Codec) randBits(n int) uint64 {
	l := c.gen.IntN(n + 1)
	if l == 0 {
		return 0
	}
	return c.gen.Uint64()>>(64-l) | 1<<(l-1)
}

// randSigned is a signed number that fits n bits, as likely negative as not.
func (c *Codec) randSigned(n int) int64 {
	v := int64(c.randBits(n - 1))
	if c.gen.IntN(2) == 0 {
		return -v - 1 // down to -2^(n-1)
	}
	return v
}

// randBytes is nil, a few bytes, or (when limit is small enough to make)
// limit bytes. The bytes come from a small alphabet, so that two short
// texts are often the same.
func (c *Codec) randBytes(limit int) []byte {
	n := 0
	switch k := c.gen.IntN(8); {
	case k == 0:
	case k == 1 && limit <= 4<<10:
		n = limit
	default:
		n = 1 + c.gen.IntN(min(limit, 3))
	}
	if n == 0 {
		return nil
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = "ab\xe2\x82\xac"[c.gen.IntN(5)]
	}
	return b
}
