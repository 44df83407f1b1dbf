package wire

import (
	"errors"
	"strings"
	"testing"
)

// TestDecoderReadsWhatWasAppended, field by field, and stops at the first
// failure with an error that names the field.
func TestDecoderReadsWhatWasAppended(t *testing.T) {
	b := AppendUvarint(nil, 1<<40)
	b = AppendVarint(b, -7)
	b = AppendString(b, "fib")
	b = AppendBytes(b, []byte{1, 2})
	b = AppendBool(b, true)
	d := NewDecoder(b)
	if d.Uvarint("a") != 1<<40 || d.Int32("b") != -7 || d.String("c", 10) != "fib" || string(d.Bytes("d", 10)) != "\x01\x02" || !d.Bool("e") {
		t.Fatal("fields read back wrong")
	}
	d.End("test")
	if d.Err() != nil || d.Left() != 0 {
		t.Fatalf("%v, %d left", d.Err(), d.Left())
	}
	d = NewDecoder(AppendString(nil, "a long name"))
	d.String("name", 4)
	d.Uvarint("after")
	if err := d.Err(); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "name of 11 bytes exceeds limit 4") {
		t.Fatalf("err %v", err)
	}
}

// TestCountRefusesWhatTheBytesCannotHold: a list announced longer than the
// bytes left could hold is refused before anything is made for it.
func TestCountRefusesWhatTheBytesCannotHold(t *testing.T) {
	d := NewDecoder(AppendUvarint(nil, 1000))
	if n := d.Count("tasks", 1<<16, 3); n != 0 || d.Err() == nil {
		t.Fatalf("count %d, err %v", n, d.Err())
	}
	d = NewDecoder(AppendUvarint(nil, 1<<20))
	if d.Count("tasks", 1<<16, 0); d.Err() == nil {
		t.Fatal("a count past the limit was accepted")
	}
}

func TestTruncateUTF8(t *testing.T) {
	s := strings.Repeat("€", 10) // 3 bytes each
	if got := TruncateUTF8(s, 10); got != strings.Repeat("€", 3) {
		t.Fatalf("%q", got)
	}
	if got := TruncateUTF8("short", 10); got != "short" {
		t.Fatalf("%q", got)
	}
}
