package wire

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// sample is a message of every kind of field a Codec walks.
type sample struct {
	U        uint64
	V        int64
	I32      int32
	U32      uint32
	D        time.Duration
	N        int
	F        float64
	B        bool
	Raw      []byte
	S, T     string
	Kinds    []string
	IDs      []uint64
	Extra    bool // a tail: sent when true
	ExtraVal uint64
}

func (m *sample) fields(c *Codec) {
	c.Uvarint(&m.U, "u")
	c.Varint(&m.V, "v")
	c.Int32(&m.I32, "i32")
	c.Uint32(&m.U32, "u32")
	c.Duration(&m.D, "d")
	Natural(c, &m.N, "n", 1000)
	c.Float64(&m.F, "f")
	c.Bool(&m.B, "b")
	c.Bytes(&m.Raw, "raw", 8)
	c.String(&m.S, "s", 8)
	c.Text(&m.T, "t", 8)
	last := ""
	kinds := List(c, &m.Kinds, "kinds", 5, 1)
	for i := range kinds {
		c.SharedString(&kinds[i], &last, "kind", 8)
	}
	ids := List(c, &m.IDs, "ids", 3, 1)
	for i := range ids {
		c.Uvarint(&ids[i], "id")
	}
	if c.MoreFlag(&m.Extra) {
		c.Uvarint(&m.ExtraVal, "extra")
	}
}

func encode(m *sample) []byte {
	c := Encoder(nil)
	m.fields(&c)
	return c.Encoded()
}

func decode(b []byte) (*sample, error) {
	var m sample
	c := DecoderOf(b)
	m.fields(&c)
	c.End("sample")
	return &m, c.Err()
}

// TestCodecRoundTrip: what an encoder makes of a message, a decoder reads
// back as the same message, field by field as the appenders and the
// Decoder's readers would, and a tail that is not sent is not there.
func TestCodecRoundTrip(t *testing.T) {
	m := &sample{U: 1 << 40, V: -7, I32: math.MinInt32, U32: math.MaxUint32, D: time.Second, N: 1000, F: 1.5, B: true,
		Raw: []byte{1, 2}, S: "fib", T: "a text", Kinds: []string{"x", "x", "y"}, IDs: []uint64{3, 1 << 50}, Extra: true, ExtraVal: 9}
	b := encode(m)
	got, err := decode(b)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, m)
	}
	if unsafe.StringData(got.Kinds[0]) != unsafe.StringData(got.Kinds[1]) {
		t.Error("two equal kinds in a row are two strings")
	}
	// The same bytes as the appenders make, in order.
	want := AppendUvarint(nil, m.U)
	want = AppendVarint(want, m.V)
	want = AppendVarint(want, int64(m.I32))
	want = AppendUvarint(want, uint64(m.U32))
	want = AppendDuration(want, m.D)
	want = AppendUvarint(want, uint64(m.N))
	want = AppendUvarint(want, math.Float64bits(m.F))
	want = AppendBool(want, m.B)
	want = AppendBytes(want, m.Raw)
	want = AppendString(want, m.S)
	want = AppendString(want, m.T)
	want = AppendUvarint(want, 3)
	for _, k := range m.Kinds {
		want = AppendString(want, k)
	}
	want = AppendUvarint(want, 2)
	for _, id := range m.IDs {
		want = AppendUvarint(want, id)
	}
	want = AppendUvarint(want, m.ExtraVal)
	if string(b) != string(want) {
		t.Fatalf("encoded %x, want %x", b, want)
	}
	// Without its tail, the message ends before it.
	m.Extra, m.ExtraVal = false, 0
	if got, err := decode(encode(m)); err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("without the tail: %+v, %v", got, err)
	}
}

// TestCodecCutsAndRefuses: an encoder cuts a Text and a List to their
// limits; a decoder refuses what is past a limit, and an encoder sends a
// negative Duration or Natural as 0.
func TestCodecCutsAndRefuses(t *testing.T) {
	m := &sample{T: strings.Repeat("€", 4), IDs: []uint64{1, 2, 3, 4, 5}, D: -time.Second, N: -3}
	got, err := decode(encode(m))
	if err != nil || got.T != "€€" || len(got.IDs) != 3 || got.D != 0 || got.N != 0 {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	for name, m := range map[string]*sample{
		"long string": {S: "123456789"},
		"long bytes":  {Raw: make([]byte, 9)},
		"natural":     {N: 1001},
	} {
		if _, err := decode(encode(m)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want a malformed-message error", name, err)
		}
	}
	// A uint32 and an int32 past 32 bits.
	b := encode(&sample{})
	for what, bad := range map[string][]byte{
		"u32 4294967296 over 4294967295": append(append(AppendVarint(AppendVarint(AppendUvarint(nil, 0), 0), 0), AppendUvarint(nil, 1<<32)...), b[4:]...),
		"i32 2147483648 overflows":       append(AppendVarint(AppendVarint(AppendUvarint(nil, 0), 0), 1<<31), b[3:]...),
	} {
		if _, err := decode(bad); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), what) {
			t.Errorf("%x: %v, want a malformed-message error: %s", bad, err, what)
		}
	}
	// Fail is the decoder's: an encoder sends what it is given.
	c := Encoder(nil)
	c.Fail("no")
	if c.Err() != nil {
		t.Fatal("an encoder failed")
	}
}

// TestGeneratorFillsWhatDecodes: a generator's messages encode and decode
// to themselves, and in a few hundred every field takes a value other
// than its zero, both ways of a tail, and every length of a short list.
func TestGeneratorFillsWhatDecodes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	set := map[string]bool{}
	lens := map[int]bool{}
	for range 500 {
		var m sample
		c := Generator(r)
		m.fields(&c)
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
		got, err := decode(encode(&m))
		if err != nil || !reflect.DeepEqual(got, &m) {
			t.Fatalf("generated %+v, decoded %+v, %v", m, got, err)
		}
		v := reflect.ValueOf(m)
		for i := range v.NumField() {
			if !v.Field(i).IsZero() {
				set[v.Type().Field(i).Name] = true
			}
		}
		lens[len(m.Kinds)] = true
		if m.N > 1000 || m.D < 0 || math.IsNaN(m.F) {
			t.Fatalf("generated out of range: %+v", m)
		}
	}
	for i := range reflect.TypeFor[sample]().NumField() {
		if f := reflect.TypeFor[sample]().Field(i).Name; !set[f] {
			t.Errorf("field %s never set", f)
		}
	}
	if len(lens) != 5 {
		t.Errorf("lists of lengths %v, want 0 to 4", lens)
	}
}
