package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestEventQueueOrder: the queue pops events by time, and events of one
// time in the order they were posted, however pushes and pops interleave.
func TestEventQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q eventQueue
	var seq uint64
	last := &event{at: -1}
	for step := range 100000 {
		if len(q) == 0 || rng.IntN(5) < 3 {
			// Never before the last popped, as the simulator posts.
			q.push(&event{at: last.at + time.Duration(rng.IntN(4)), seq: seq})
			seq++
			continue
		}
		e := q.pop()
		if e.at < last.at || e.at == last.at && e.seq < last.seq {
			t.Fatalf("step %d: popped (%v, %d) after (%v, %d)", step, e.at, e.seq, last.at, last.seq)
		}
		last = e
	}
}
