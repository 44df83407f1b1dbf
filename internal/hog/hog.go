package hog

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// slice is the duty cycle of a hog: it burns Fraction of every slice. Short
// enough that a worker sharing the core sees an even slowdown over a task,
// long against the OS's switching cost.
const slice = 10 * time.Millisecond

// Spec is a hog: it burns Fraction of a core; with On and Off set, only for
// On out of every On+Off, starting with On.
type Spec struct {
	Fraction float64
	On, Off  time.Duration
}

// Parse reads F or F:ON/OFF, e.g. "0.5" or "0.5:2s/2s".
func Parse(s string) (Spec, error) {
	frac, period, cycled := strings.Cut(s, ":")
	f, err := strconv.ParseFloat(frac, 64)
	if err != nil || f <= 0 || f > 1 {
		return Spec{}, fmt.Errorf("hog %q: want a fraction of a core in (0, 1], optionally :ON/OFF such as 0.5:2s/2s", s)
	}
	spec := Spec{Fraction: f}
	if cycled {
		on, off, ok := strings.Cut(period, "/")
		a, errA := time.ParseDuration(on)
		b, errB := time.ParseDuration(off)
		if !ok || errA != nil || errB != nil || a <= 0 || b <= 0 {
			return Spec{}, fmt.Errorf("hog %q: the period must be ON/OFF, two positive durations such as 2s/2s", s)
		}
		spec.On, spec.Off = a, b
	}
	return spec, nil
}

// String gives the form Parse reads.
func (s Spec) String() string {
	f := strconv.FormatFloat(s.Fraction, 'g', -1, 64)
	if s.On > 0 {
		return fmt.Sprintf("%s:%v/%v", f, s.On, s.Off)
	}
	return f
}

// Active reports whether the hog is in an on phase at elapsed since it
// started (always, for a constant hog): it then takes Fraction of a core.
func (s Spec) Active(elapsed time.Duration) bool {
	return s.On == 0 || elapsed%(s.On+s.Off) < s.On
}

// Burning reports whether the hog burns at elapsed since it started.
func (s Spec) Burning(elapsed time.Duration) bool {
	return s.Active(elapsed) && elapsed%slice < time.Duration(s.Fraction*float64(slice))
}

// Run burns CPU as s says until ctx ends, on a thread of its own.
func Run(ctx context.Context, s Spec) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	x := uint64(1)
	for ctx.Err() == nil {
		elapsed := time.Since(start)
		if s.Burning(elapsed) {
			for range 1000 { // a few microseconds between clock reads
				x = x*6364136223846793005 + 1442695040888963407
			}
			continue
		}
		// Sleep to the next moment it burns (the next slice, or the
		// next On phase).
		next := (elapsed/slice + 1) * slice
		if !s.Active(elapsed) {
			next = (elapsed/(s.On+s.Off) + 1) * (s.On + s.Off)
		}
		select {
		case <-ctx.Done():
		case <-time.After(next - elapsed):
		}
	}
	runtime.KeepAlive(x)
}
