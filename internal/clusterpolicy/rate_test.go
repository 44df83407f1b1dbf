package clusterpolicy

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// TestRateMeterSettlesOnTheBusyFraction: fed a node whose 2 workers are
// busy 3/4 of the time, at irregular ticks, the rate settles near 1.5
// worker-seconds per second, and follows a change within a few time
// constants.
func TestRateMeterSettlesOnTheBusyFraction(t *testing.T) {
	var m RateMeter
	now, busy := t0, time.Duration(0)
	step := func(dt time.Duration, perSecond float64) float64 {
		now = now.Add(dt)
		busy += time.Duration(float64(dt) * perSecond)
		return m.Observe(now, busy)
	}
	var r float64
	for i := range 400 {
		r = step(time.Duration(1+i%5)*time.Millisecond, 1.5)
	}
	if math.Abs(r-1.5) > 0.01 {
		t.Fatalf("rate %.3f, want 1.5", r)
	}
	for range 500 {
		r = step(2*time.Millisecond, 0.5)
	}
	if math.Abs(r-0.5) > 0.01 {
		t.Fatalf("rate %.3f after the slow-down, want 0.5", r)
	}
	// A new run starts the busy time over: the rate stays put.
	now, busy = now.Add(time.Millisecond), 0
	if got := m.Observe(now, busy); got != r {
		t.Fatalf("rate %.3f after a restart, want %.3f kept", got, r)
	}
	if got := step(2*time.Millisecond, 0.5); math.Abs(got-0.5) > 0.01 {
		t.Fatalf("rate %.3f after the restart, want 0.5", got)
	}
}

// TestUsefulWorkIsBusyTimeTheCPURan: a worker busy all the time on a core
// it shares does half the work; CPU time beyond the busy time (the
// runtime's own threads) counts for nothing.
func TestUsefulWorkIsBusyTimeTheCPURan(t *testing.T) {
	var u UsefulWork
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	u.Add(0, 0, true)
	if got := u.Add(ms(100), ms(50), true); got != ms(50) {
		t.Fatalf("busy 100 ms with 50 ms of CPU: %v useful", got)
	}
	if got := u.Add(ms(110), ms(150), true); got != ms(60) {
		t.Fatalf("busy 10 ms with 100 ms of CPU: %v useful, want 60ms", got)
	}
	if got := u.Add(ms(130), 0, false); got != ms(80) {
		t.Fatalf("without CPU time, busy time alone: %v", got)
	}
	// A new run: busy time starts over; the total stays.
	if got := u.Add(0, ms(200), true); got != ms(80) {
		t.Fatalf("restart: %v", got)
	}
}
