package wire

import (
	"math"
	"math/rand/v2"
	"time"
)

// A Codec walks the fields of a message in the order they are sent, in one
// of three directions: an encoder appends each field's value, a decoder
// reads each field's value from bytes, and a generator gives each a
// random value a decoder could have read (for tests). A message's bytes
// are so described once, by one function that hands each of its fields to
// a Codec, which serves all three:
//
//	package cluster
//
//	import "github.com/tsys-go/tsys/internal/wire"
//
//	// jobAsk asks a job's root whether Job still runs.
//	type jobAsk struct {
//		Job     uint64
//		ReplyTo string
//	}
//
//	func (m *jobAsk) fields(c *wire.Codec) {
//		c.Uvarint(&m.Job, "job")
//		c.String(&m.ReplyTo, "reply address", 1<<10)
//	}
//
//	func encode(m *jobAsk) []byte {
//		c := wire.Encoder(nil)
//		m.fields(&c)
//		return c.Encoded()
//	}
//
// Each field is handed by a pointer to a method named for its encoding,
// with the name a decoding error gives it and, for what has a length, the
// most a decoder accepts. An encoder only reads the fields (one message may be
// encoded by several goroutines at once); a decoder and a generator write
// them. A check beyond a field's own encoding (a value out of the range
// the receiver takes) is written with Fail, which an encoder ignores: it
// sends what it is given, and the receiver refuses it.
type Codec struct {
	// in is what a decoder reads; an encoder's in.b is what it made so
	// far. A decoder's and a generator's first failure is in.err.
	in  Decoder
	gen *rand.Rand // generating
	dir direction
}

type direction uint8

const (
	encoding direction = iota
	decoding
	generating
)

// Encoder is a Codec that appends to dst.
func Encoder(dst []byte) Codec { return Codec{dir: encoding, in: Decoder{b: dst}} }

// DecoderOf is a Codec that reads b.
func DecoderOf(b []byte) Codec { return Codec{dir: decoding, in: Decoder{b: b}} }

// Generator is a Codec that gives each field a random value that a
// decoder could have read, drawn from r, for tests: a message it fills
// (with Err nil) encodes and decodes to itself. It makes short lists and
// texts, some as long as their limit when that is small, never a NaN
// (which equals nothing), and often a SharedString the same as the last.
func Generator(r *rand.Rand) Codec { return Codec{dir: generating, gen: r} }

// Encoded is what an encoder made.
func (c *Codec) Encoded() []byte { return c.in.b }

// Err is the first failure of a decoder or a generator (see Decoder.Err).
func (c *Codec) Err() error { return c.in.Err() }

// End fails a decoder unless every byte was read.
func (c *Codec) End(what string) {
	if c.dir == decoding {
		c.in.End(what)
	}
}

// Fail records why a decoder refuses what it read, or why a generator's
// value will not do; an encoder ignores it.
func (c *Codec) Fail(format string, args ...any) {
	if c.dir != encoding {
		c.in.Fail(format, args...)
	}
}

// More says whether the fields after it are there: an encoder sends them
// if send; a decoder reads them if any bytes are left; a generator makes
// them or not, at random. Those fields are the message's last, a tail an
// older build does not send, and take at least a byte.
func (c *Codec) More(send bool) bool {
	switch c.dir {
	case encoding:
		return send
	case decoding:
		return c.in.Left() > 0
	}
	return c.gen.IntN(2) == 1
}

// MoreFlag is More for a tail that *flag says is there: a decoder and a
// generator set it.
func (c *Codec) MoreFlag(flag *bool) bool {
	if c.dir != encoding {
		*flag = c.More(false)
	}
	return *flag
}

// Uvarint walks a number sent as a uvarint.
func (c *Codec) Uvarint(v *uint64, what string) {
	switch c.dir {
	case encoding:
		c.in.b = AppendUvarint(c.in.b, *v)
	case decoding:
		*v = c.in.Uvarint(what)
	default:
		*v = c.randBits(64)
	}
}

// Varint walks a signed number sent zigzag-encoded.
func (c *Codec) Varint(v *int64, what string) {
	switch c.dir {
	case encoding:
		c.in.b = AppendVarint(c.in.b, *v)
	case decoding:
		*v = c.in.Varint(what)
	default:
		*v = c.randSigned(64)
	}
}

// Int32 walks a signed number sent zigzag-encoded, which must fit 32 bits.
func (c *Codec) Int32(v *int32, what string) {
	switch c.dir {
	case encoding:
		c.in.b = AppendVarint(c.in.b, int64(*v))
	case decoding:
		*v = c.in.Int32(what)
	default:
		*v = int32(c.randSigned(32))
	}
}

// Uint32 walks a number sent as a uvarint, which must fit 32 bits.
func (c *Codec) Uint32(v *uint32, what string) {
	switch c.dir {
	case encoding:
		c.in.b = AppendUvarint(c.in.b, uint64(*v))
	case decoding:
		u := c.in.Uvarint(what)
		if u > math.MaxUint32 {
			c.Fail("%s %d over %d", what, u, uint64(math.MaxUint32))
		}
		*v = uint32(u)
	default:
		*v = uint32(c.randBits(32))
	}
}

// Uint8 walks a number sent as a uvarint, which must fit 8 bits.
func (c *Codec) Uint8(v *uint8, what string) {
	switch c.dir {
	case encoding:
		c.in.b = AppendUvarint(c.in.b, uint64(*v))
	case decoding:
		u := c.in.Uvarint(what)
		if u > math.MaxUint8 {
			c.Fail("%s %d over %d", what, u, uint64(math.MaxUint8))
		}
		*v = uint8(u)
	default:
		*v = uint8(c.randBits(8))
	}
}

// Duration walks a duration that must not be negative, sent as a
// uvarint; a negative one is sent as 0.
func (c *Codec) Duration(v *time.Duration, what string) {
	switch c.dir {
	case encoding:
		c.in.b = AppendDuration(c.in.b, *v)
	case decoding:
		*v = c.in.Duration(what)
	default:
		*v = time.Duration(c.randBits(63))
	}
}

// Natural walks a number that must be from 0 to limit, sent as a
// uvarint; a negative one is sent as 0.
func Natural[T ~int | ~int64](c *Codec, v *T, what string, limit uint64) {
	switch c.dir {
	case encoding:
		c.in.b = AppendUvarint(c.in.b, uint64(max(*v, 0)))
		return
	case decoding:
		u := c.in.Uvarint(what)
		if u > limit {
			c.Fail("%s %d out of range", what, u)
			return
		}
		*v = T(u)
	default:
		*v = T(min(c.randBits(64), limit))
	}
}

// Float64 walks a float64 sent as the uvarint of its bits.
func (c *Codec) Float64(v *float64, what string) {
	bits := math.Float64bits(*v)
	c.Uvarint(&bits, what)
	if c.dir != encoding {
		if *v = math.Float64frombits(bits); c.dir == generating && math.IsNaN(*v) {
			*v = 0
		}
	}
}

// Bool walks a flag sent as one byte, 0 or 1.
func (c *Codec) Bool(v *bool, what string) {
	switch c.dir {
	case encoding:
		c.in.b = AppendBool(c.in.b, *v)
	case decoding:
		*v = c.in.Bool(what)
	default:
		*v = c.gen.IntN(2) == 1
	}
}

// Bytes walks a byte field of at most limit bytes, sent with its length.
// A decoder's aliases its input, and is nil when empty.
func (c *Codec) Bytes(v *[]byte, what string, limit int) {
	switch c.dir {
	case encoding:
		c.in.b = AppendBytes(c.in.b, *v)
	case decoding:
		*v = c.in.Bytes(what, limit)
	default:
		*v = c.randBytes(limit)
	}
}

// String walks a string of at most limit bytes, sent with its length. An
// encoder sends it whole: a longer one is refused where it arrives.
func (c *Codec) String(v *string, what string, limit int) {
	switch c.dir {
	case encoding:
		c.in.b = AppendString(c.in.b, *v)
	case decoding:
		*v = c.in.String(what, limit)
	default:
		*v = string(c.randBytes(limit))
	}
}

// Text walks a string that an encoder cuts to limit bytes (TruncateUTF8):
// a text for people, an error or a name, which says enough cut rather
// than be refused.
func (c *Codec) Text(v *string, what string, limit int) {
	if c.dir == encoding {
		c.in.b = AppendString(c.in.b, TruncateUTF8(*v, limit))
		return
	}
	c.String(v, what, limit)
}

// SharedString walks a String that is often the same as the one before,
// *last (the tasks of a list, of one kind): a decoder that reads the same
// text keeps one string for both. It sets *last to *v.
func (c *Codec) SharedString(v, last *string, what string, limit int) {
	switch c.dir {
	case encoding:
		c.in.b = AppendString(c.in.b, *v)
		return
	case decoding:
		if b := c.in.Bytes(what, limit); string(b) == *last {
			*v = *last
		} else {
			*v = string(b)
		}
	default:
		if c.gen.IntN(2) == 0 {
			*v = *last
		} else {
			c.String(v, what, limit)
		}
	}
	*last = *v
}

// List walks a list of at most limit elements, each of which takes at
// least minSize bytes, sent as its length and then its elements: it
// returns the elements, for the caller to walk each in turn, the list's
// own for an encoder, which sends at most the first limit, and a new one,
// set in *v, for a decoder and a generator. A decoder refuses a longer
// list, or one the bytes left cannot hold, before it makes anything, and
// makes nil for none.
func List[T any](c *Codec, v *[]T, what string, limit, minSize int) []T {
	var n int
	switch c.dir {
	case encoding:
		s := (*v)[:min(len(*v), limit)]
		c.in.b = AppendUvarint(c.in.b, uint64(len(s)))
		return s
	case decoding:
		n = c.in.Count(what, limit, minSize)
	default:
		n = c.gen.IntN(min(limit, 4) + 1)
	}
	if n == 0 {
		*v = nil
		return nil
	}
	*v = make([]T, n)
	return *v
}
