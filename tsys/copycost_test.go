package tsys

import (
	"testing"
	"time"
)

// TestCopyCost: a large copy is worth a warning at once, a slow one only
// when slowCopies in a row are slow (one is likelier a busy machine),
// decided on given durations, without a clock.
func TestCopyCost(t *testing.T) {
	for _, c := range []struct {
		name   string
		copies []time.Duration
		n      int
		want   bool // after the last copy
	}{
		{"small and quick", []time.Duration{time.Microsecond}, 100, false},
		{"at the bounds", []time.Duration{slowCopy, slowCopy, slowCopy, slowCopy}, largeCopy, false},
		{"large", []time.Duration{0}, largeCopy + 1, true},
		{"one slow", []time.Duration{2 * slowCopy}, 100, false},
		{"slow in a row", []time.Duration{2 * slowCopy, 2 * slowCopy, 2 * slowCopy}, 100, true},
		{"slow, broken by a quick one", []time.Duration{2 * slowCopy, 2 * slowCopy, 0, 2 * slowCopy}, 100, false},
	} {
		var cc copyCost
		var got bool
		for _, took := range c.copies {
			got = cc.costly(c.n, took)
		}
		if got != c.want {
			t.Errorf("%s: costly %v, want %v", c.name, got, c.want)
		}
	}
}
