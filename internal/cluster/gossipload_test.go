package cluster

import (
	"testing"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// TestSteadyLoad: a rate that jitters within the slack gossips as it was,
// one that moves further, or a count that changes, goes out as it is, and
// a rate that decays towards 0 ends at 0.
func TestSteadyLoad(t *testing.T) {
	for _, c := range []struct {
		rate, last, want float64
		ready            int
	}{
		{0.93, 0.97, 0.97, 0}, // jitter of a busy worker
		{0.80, 0.97, 0.80, 0}, // a slowdown
		{1.85, 1.97, 1.97, 0}, // within 10% of two workers
		{1.60, 1.97, 1.60, 0},
		{0.05, 0.08, 0.08, 0},
		{0.005, 0.08, 0, 0}, // decayed: idle
		{0.93, 0.97, 0.97, 3},
	} {
		last := clusterpolicy.Load{Workers: 2, Rate: c.last}
		got := steadyLoad(clusterpolicy.Load{Workers: 2, Ready: c.ready, Rate: c.rate}, last)
		if got.Rate != c.want || got.Ready != c.ready || got.Workers != 2 {
			t.Errorf("rate %v after %v gossiped: got %+v, want rate %v, ready %d", c.rate, c.last, got, c.want, c.ready)
		}
	}
}
