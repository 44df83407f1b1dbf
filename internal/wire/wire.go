package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"
)

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("malformed message")

// AppendUvarint appends v.
func AppendUvarint(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }

// AppendVarint appends v, zigzag-encoded.
func AppendVarint(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

// AppendBytes appends b with its length.
func AppendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// AppendString appends s with its length.
func AppendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// AppendBool appends b as one byte.
// AppendDuration appends d, negative as 0, for Decoder.Duration.
func AppendDuration(dst []byte, d time.Duration) []byte { return AppendUvarint(dst, uint64(max(d, 0))) }

func AppendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// TruncateUTF8 cuts s to at most n bytes without splitting a rune (if s is
// valid UTF-8 there): error texts are cut to their limit before they are
// sent, rather than refused.
func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && i > n-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// Decoder reads fields from a byte slice in order. The first failure is
// kept (Err) and every later read returns a zero value, so a message is
// decoded field by field and checked once at the end.
type Decoder struct {
	b   []byte
	off int
	err error
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Err returns the first failure, wrapping ErrMalformed, or nil.
func (d *Decoder) Err() error {
	if d.err == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrMalformed, d.err)
}

// Offset is how many bytes were read.
func (d *Decoder) Offset() int { return d.off }

// Left is how many bytes are left.
func (d *Decoder) Left() int { return len(d.b) - d.off }

// Fail records a failure found by the caller (a value out of range).
func (d *Decoder) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%s (at byte %d)", fmt.Sprintf(format, args...), d.off)
	}
}

// Uvarint reads an unsigned number named what in errors.
func (d *Decoder) Uvarint(what string) uint64 { return number(d, what, binary.Uvarint) }

// Varint reads a zigzag-encoded signed number.
func (d *Decoder) Varint(what string) int64 { return number(d, what, binary.Varint) }

// number reads a varint with read (binary.Uvarint or binary.Varint).
func number[T uint64 | int64](d *Decoder, what string, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b[d.off:])
	if n <= 0 {
		if n == 0 {
			d.Fail("truncated %s", what)
		} else {
			d.Fail("%s overflows 64 bits", what)
		}
		return 0
	}
	d.off += n
	return v
}

// Duration reads a non-negative duration (AppendDuration wrote it).
func (d *Decoder) Duration(what string) time.Duration {
	v := d.Uvarint(what)
	if d.err == nil && v > math.MaxInt64 {
		d.Fail("%s %d out of range", what, v)
		return 0
	}
	return time.Duration(v)
}

// Int32 reads a signed number that must fit 32 bits.
func (d *Decoder) Int32(what string) int32 {
	v := d.Varint(what)
	if d.err == nil && (v < -1<<31 || v > 1<<31-1) {
		d.Fail("%s %d overflows 32 bits", what, v)
		return 0
	}
	return int32(v)
}

// Bool reads one byte that must be 0 or 1.
func (d *Decoder) Bool(what string) bool {
	if d.err != nil {
		return false
	}
	if d.off >= len(d.b) {
		d.Fail("truncated %s", what)
		return false
	}
	v := d.b[d.off]
	if v > 1 {
		d.Fail("%s is %d, want 0 or 1", what, v)
		return false
	}
	d.off++
	return v == 1
}

// Bytes reads a length-prefixed field of at most limit bytes. The result
// aliases the input; it is nil when empty.
func (d *Decoder) Bytes(what string, limit int) []byte {
	if d.err != nil {
		return nil
	}
	l, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.Fail("truncated %s length", what)
		return nil
	}
	d.off += n
	switch {
	case l > uint64(limit):
		d.Fail("%s of %d bytes exceeds limit %d", what, l, limit)
		return nil
	case l > uint64(len(d.b)-d.off):
		d.Fail("truncated %s: %d bytes announced, %d left", what, l, len(d.b)-d.off)
		return nil
	case l == 0:
		return nil
	}
	s := d.b[d.off : d.off+int(l) : d.off+int(l)]
	d.off += int(l)
	return s
}

// String reads a length-prefixed string of at most limit bytes (a copy).
func (d *Decoder) String(what string, limit int) string { return string(d.Bytes(what, limit)) }

// Count reads the number of elements of a list whose elements take at
// least minSize bytes each, of at most limit elements: a count the bytes
// left cannot hold is refused before the caller allocates for it.
func (d *Decoder) Count(what string, limit, minSize int) int {
	n := d.Uvarint(what)
	switch {
	case d.err != nil:
		return 0
	case n > uint64(limit):
		d.Fail("%d %s exceed limit %d", n, what, limit)
		return 0
	case n*uint64(max(minSize, 1)) > uint64(len(d.b)-d.off):
		d.Fail("%d %s announced, %d bytes left", n, what, len(d.b)-d.off)
		return 0
	}
	return int(n)
}

// End fails unless every byte was read.
func (d *Decoder) End(what string) {
	if d.err == nil && d.off != len(d.b) {
		d.Fail("%d bytes after the end of %s", len(d.b)-d.off, what)
	}
}
