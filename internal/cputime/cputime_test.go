package cputime

import (
	"testing"
	"time"
)

// TestProcessCountsWork: spinning shows as CPU time, and sleeping does
// not. The spin runs until the process has 20 ms of CPU rather than for
// a fixed wall time, so a machine that gives it no share for a while
// (load 30 on 2 cores) makes the test wait, not fail; it fails only if
// the CPU time never grows.
func TestProcessCountsWork(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Fatal("no CPU time on this platform: nodes here cannot tell a loaded core")
	}
	const want, bound = 20 * time.Millisecond, time.Minute
	x := 0
	busy := before
	for start := time.Now(); busy-before < want; busy, _ = Process() {
		if time.Since(start) > bound {
			t.Fatalf("%v of spinning counted as %v of CPU", bound, busy-before)
		}
		for range 100_000 {
			x++
		}
	}
	_ = x
	time.Sleep(50 * time.Millisecond)
	slept, _ := Process()
	if slept-busy > 25*time.Millisecond {
		t.Errorf("50 ms of sleep counted as %v of CPU", slept-busy)
	}
}
