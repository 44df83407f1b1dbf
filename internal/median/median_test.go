package median

import (
	"slices"
	"testing"
	"time"
)

func TestOf(t *testing.T) {
	xs := []float64{3, 1, 2}
	if got := Of(xs); got != 2 || !slices.Equal(xs, []float64{3, 1, 2}) {
		t.Errorf("Of(3, 1, 2) = %v, and xs became %v", got, xs)
	}
	if got := Of([]time.Duration{4, 1, 3, 2}); got != 2 {
		t.Errorf("Of(4, 1, 3, 2 ns) = %v, want 2 ns (the middle two's mean, 2.5, truncated)", got)
	}
	if got := Of([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("Of(4, 1, 3, 2) = %v, want 2.5", got)
	}
	if got := Of([]time.Duration{4, 1, 100, 2}); got != 3 {
		t.Errorf("Of(4, 1, 100, 2 ns) = %v, want 3 ns", got)
	}
	if got := Of[float64](nil); got != 0 {
		t.Errorf("Of() = %v", got)
	}
}
