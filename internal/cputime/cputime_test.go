package cputime

import (
	"testing"
	"time"
)

// TestProcessCountsWork: a busy loop of 50 ms of wall time shows as CPU
// time, and sleeping does not.
func TestProcessCountsWork(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Fatal("no CPU time on this platform: nodes here cannot tell a loaded core")
	}
	x := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		x++
	}
	_ = x
	busy, _ := Process()
	time.Sleep(50 * time.Millisecond)
	slept, _ := Process()
	if busy-before < 10*time.Millisecond {
		t.Errorf("50 ms of spinning counted as %v of CPU", busy-before)
	}
	if slept-busy > 25*time.Millisecond {
		t.Errorf("50 ms of sleep counted as %v of CPU", slept-busy)
	}
}
