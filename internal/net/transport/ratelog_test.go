package transport

import (
	"testing"
	"time"
)

// TestLogBucket: a burst of refusals is logged whole up to logBurst lines,
// then one a second, and the line after a gap says how many were held
// back.
func TestLogBucket(t *testing.T) {
	var b logBucket
	t0 := time.Unix(1000, 0)
	logged := 0
	for i := range 1000 { // a thousand refusals in one second
		if ok, _ := b.take(t0.Add(time.Duration(i) * time.Millisecond)); ok {
			logged++
		}
	}
	if logged != logBurst {
		t.Fatalf("%d of a thousand refusals in a second logged, want the burst of %d", logged, logBurst)
	}
	ok, held := b.take(t0.Add(2 * time.Second))
	if !ok || held != 1000-logBurst {
		t.Fatalf("after a second: logged %v, %d held back; want a line saying %d", ok, held, 1000-logBurst)
	}
	// Over a minute of the same flood, about a line a second.
	logged = 0
	for i := range 60_000 {
		if ok, _ := b.take(t0.Add(3*time.Second + time.Duration(i)*time.Millisecond)); ok {
			logged++
		}
	}
	if logged < 55 || logged > 60+logBurst {
		t.Errorf("%d lines in a minute of refusals, want about 60", logged)
	}
}
