package opts

import (
	"strings"
	"testing"
	"time"
)

// TestReader: values of each kind, defaults for what is absent, the first
// bad value, and then an option never read, each named in the error.
func TestReader(t *testing.T) {
	r, err := Parse("test", "n=3,d=2ms,f=0.5,s=x")
	if err != nil {
		t.Fatal(err)
	}
	if r.Int("n", 1) != 3 || r.Duration("d", 0, "") != 2*time.Millisecond || r.Float("f", 0, true, "") != 0.5 ||
		r.String("s", "") != "x" || r.Int("absent", 7) != 7 || r.Err("n, d, f or s") != nil {
		t.Error("values or defaults wrong")
	}
	for in, want := range map[string]string{
		"n=0":      `test option n="0": want a whole number`,
		"d=soon":   `test option d="soon": want a duration`,
		"f=0":      `test option f="0": want a positive number`,
		"n=2,zz=1": `unknown test option "zz=1": want n, d or f`,
	} {
		r, _ := Parse("test", in)
		r.Int("n", 1)
		r.Duration("d", 0, "want a duration")
		r.Float("f", 1, true, "want a positive number")
		if err := r.Err("n, d or f"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	if _, err := Parse("", "n"); err == nil || !strings.Contains(err.Error(), `option "n": want KEY=VALUE`) {
		t.Errorf("an item without '=': %v", err)
	}
}

// TestKnown: an error's list of options reads as a sentence, bare words
// as they are written.
func TestKnown(t *testing.T) {
	for want, options := range map[string][]Option{
		"no option":       nil,
		"n=N":             {{Key: "n", Value: "N"}},
		"a|b, n=N or d=D": {{Value: "a|b"}, {Key: "n", Value: "N"}, {Key: "d", Value: "D"}},
	} {
		if got := Known(options); got != want {
			t.Errorf("Known(%v) = %q, want %q", options, got, want)
		}
	}
}

// TestIntUpTo: a value past the limit is refused with the range, never
// passed on to be wrapped by a narrower type.
func TestIntUpTo(t *testing.T) {
	for in, want := range map[string]string{
		"w=4294967396": `test option w="4294967396": want a whole number from 1 to 16384`,
		"w=16385":      `want a whole number from 1 to 16384`,
		"w=0":          `want a whole number from 1 to 16384`,
	} {
		r, _ := Parse("test", in)
		r.IntUpTo("w", 640, 16384)
		if err := r.Err("w"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	r, _ := Parse("test", "w=16384")
	if got := r.IntUpTo("w", 640, 16384); got != 16384 || r.Err("w") != nil {
		t.Errorf("w=16384: %d, %v", got, r.Err("w"))
	}
}
