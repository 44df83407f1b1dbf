package hog

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Spec{
		"0.5":        {Fraction: 0.5},
		"1":          {Fraction: 1},
		"0.25:2s/1s": {Fraction: 0.25, On: 2 * time.Second, Off: time.Second},
	} {
		got, err := Parse(in)
		if err != nil || got != want || got.String() != in {
			t.Errorf("Parse(%q) = %+v (%q), %v", in, got, got.String(), err)
		}
	}
	for _, in := range []string{"", "0", "1.5", "-0.2", "half", "0.5:2s", "0.5:2s/0s", "0.5:x/1s"} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), "hog") {
			t.Errorf("Parse(%q) accepted: %v", in, err)
		}
	}
}

// TestBurningDutyCycle: the hog burns its fraction of every slice, and
// nothing in its off phases.
func TestBurningDutyCycle(t *testing.T) {
	share := func(s Spec, from, to time.Duration) float64 {
		n, on := 0, 0
		for at := from; at < to; at += 100 * time.Microsecond {
			n++
			if s.Burning(at) {
				on++
			}
		}
		return float64(on) / float64(n)
	}
	if got := share(Spec{Fraction: 0.5}, 0, time.Second); got < 0.49 || got > 0.51 {
		t.Errorf("constant 0.5 burns %.3f", got)
	}
	cyc := Spec{Fraction: 0.8, On: 200 * time.Millisecond, Off: 100 * time.Millisecond}
	if got := share(cyc, 0, 200*time.Millisecond); got < 0.79 || got > 0.81 {
		t.Errorf("on phase burns %.3f, want 0.8", got)
	}
	if got := share(cyc, 200*time.Millisecond, 300*time.Millisecond); got != 0 {
		t.Errorf("off phase burns %.3f", got)
	}
	if got := share(cyc, 300*time.Millisecond, 500*time.Millisecond); got < 0.79 {
		t.Errorf("second on phase burns %.3f", got)
	}
}
