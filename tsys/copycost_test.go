package tsys

import (
	"testing"
	"time"
)

// TestCostlyCopy: the bounds past which a copy is reported (a size, a
// time), decided without a clock.
func TestCostlyCopy(t *testing.T) {
	for _, c := range []struct {
		n    int
		took time.Duration
		want bool
	}{
		{100, time.Microsecond, false},
		{largeCopy, slowCopy, false},
		{largeCopy + 1, 0, true},
		{100, slowCopy + 1, true},
	} {
		if got := costlyCopy(c.n, c.took); got != c.want {
			t.Errorf("costlyCopy(%d, %v) = %v, want %v", c.n, c.took, got, c.want)
		}
	}
}
