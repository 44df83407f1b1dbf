package returns

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

var t0 = time.Unix(1000, 0)

func at(us int) time.Time { return t0.Add(time.Duration(us) * time.Microsecond) }

// TestBatchGoesWithTheLastTask: the results of a batch borrowed from one
// lender wait until the last of its tasks is done, and go in one batch,
// in the order they finished; another lender's do not wait for them.
func TestBatchGoesWithTheLastTask(t *testing.T) {
	b := New[int](Params{})
	b.Borrowed("a", 3)
	b.Borrowed("b", 1)
	if got := b.Done(at(1), "a", 10, t0); got != nil {
		t.Fatalf("the first of a's 3 tasks: %v sent, want it held", got)
	}
	if got := b.Done(at(2), "b", 20, t0); len(got) != 1 || got[0].Lender != "b" || !slices.Equal(got[0].Results, []int{20}) {
		t.Fatalf("b's only task: %v, want its result sent alone", got)
	}
	if got := b.Done(at(3), "a", 11, t0); got != nil {
		t.Fatalf("the second of a's: %v sent, want it held", got)
	}
	if b.Held() != 2 {
		t.Fatalf("held %d, want 2", b.Held())
	}
	got := b.Done(at(4), "a", 12, t0)
	if len(got) != 1 || got[0].Lender != "a" || !slices.Equal(got[0].Results, []int{10, 11, 12}) {
		t.Fatalf("a's last task: %v, want a's three results together", got)
	}
	if b.Held() != 0 || len(b.lenders) != 0 {
		t.Fatalf("after every result went: %d held, %d lenders kept", b.Held(), len(b.lenders))
	}
}

// TestHoldBoundsTheWait: a result held behind a task that runs long goes
// once it has waited Hold, at the time Next says, and not before.
func TestHoldBoundsTheWait(t *testing.T) {
	b := New[int](Params{Hold: 100 * time.Microsecond})
	b.Borrowed("a", 2)
	b.Done(at(10), "a", 1, t0)
	next, ok := b.Next()
	if !ok || !next.Equal(at(110)) {
		t.Fatalf("Next: %v %v, want %v", next, ok, at(110))
	}
	if got := b.Due(at(109)); got != nil {
		t.Fatalf("due 1 us early: %v", got)
	}
	if got := b.Due(at(110)); len(got) != 1 || !slices.Equal(got[0].Results, []int{1}) {
		t.Fatalf("due on time: %v, want [1]", got)
	}
	if _, ok := b.Next(); ok {
		t.Fatal("Next says something is due with nothing held")
	}
	// The long task still counts: its result, alone, goes at once.
	if got := b.Done(at(500), "a", 2, t0); len(got) != 1 || !slices.Equal(got[0].Results, []int{2}) {
		t.Fatalf("the long task's result: %v, want it sent at once", got)
	}
}

// TestCoarseTaskGoesAtOnce: the result of a task that was here longer
// than Hold goes at once, with those held for its lender, although
// others of that lender still run.
func TestCoarseTaskGoesAtOnce(t *testing.T) {
	b := New[int](Params{Hold: 100 * time.Microsecond})
	b.Borrowed("a", 3)
	if got := b.Done(at(50), "a", 1, at(0)); got != nil {
		t.Fatalf("a task of 50 us: %v sent, want it held", got)
	}
	got := b.Done(at(300), "a", 2, at(150))
	if len(got) != 1 || !slices.Equal(got[0].Results, []int{1, 2}) {
		t.Fatalf("a task of 150 us: %v, want it sent at once with the one held", got)
	}
}

// TestIdleSendsEverything: a node that runs out of work sends every
// result it holds, a batch per lender, in the lenders' order.
func TestIdleSendsEverything(t *testing.T) {
	b := New[int](Params{})
	b.Borrowed("b", 2)
	b.Borrowed("a", 2)
	b.Done(at(1), "b", 1, t0)
	b.Done(at(2), "a", 2, t0)
	got := b.Idle(at(3))
	if len(got) != 2 || got[0].Lender != "a" || got[1].Lender != "b" {
		t.Fatalf("idle: %v, want a's batch, then b's", got)
	}
	if b.Held() != 0 {
		t.Fatalf("%d held after Idle", b.Held())
	}
}

// TestMaxResults: no batch holds more than MaxResults.
func TestMaxResults(t *testing.T) {
	b := New[int](Params{MaxResults: 2})
	b.Borrowed("a", 5)
	b.Done(at(1), "a", 1, t0)
	if got := b.Done(at(2), "a", 2, t0); len(got) != 1 || len(got[0].Results) != 2 {
		t.Fatalf("the second result with MaxResults 2: %v, want both sent", got)
	}
}

// TestNoHold: a negative Hold sends each result alone, at once.
func TestNoHold(t *testing.T) {
	b := New[int](Params{Hold: -1})
	b.Borrowed("a", 3)
	for i := range 3 {
		if got := b.Done(at(i), "a", i, t0); len(got) != 1 || !slices.Equal(got[0].Results, []int{i}) {
			t.Fatalf("result %d: %v, want it alone", i, got)
		}
	}
}

// TestDroppedAndForget: tasks handed back count no more, so the last
// one run sends the batch; a lender forgotten takes its results along.
func TestDroppedAndForget(t *testing.T) {
	b := New[int](Params{})
	b.Borrowed("a", 3)
	b.Done(at(1), "a", 1, t0)
	b.Dropped("a", 1)
	if got := b.Done(at(2), "a", 2, t0); len(got) != 1 || len(got[0].Results) != 2 {
		t.Fatalf("after one task handed back, the last: %v, want both results", got)
	}
	b.Borrowed("c", 2)
	b.Done(at(3), "c", 3, t0)
	if got := b.Forget("c"); !slices.Equal(got, []int{3}) || b.Held() != 0 {
		t.Fatalf("Forget: %v, held %d, want [3] and nothing held", got, b.Held())
	}
}

// TestProperties drives a Batcher with random events and checks, at
// every step: every result is sent exactly once, to its own lender, in
// the order it was done; none waits past Hold when Due is called as Next
// says; none is held while the node is idle; Held counts what waits.
func TestProperties(t *testing.T) {
	lenders := []clusterpolicy.NodeID{"a", "b", "c"}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		hold := time.Duration(1+rng.IntN(300)) * time.Microsecond
		b := New[int](Params{Hold: hold, MaxResults: 1 + rng.IntN(6)})
		running := map[clusterpolicy.NodeID]int{}
		doneAt := map[int]time.Time{}
		lenderOf := map[int]clusterpolicy.NodeID{}
		lastSent := map[clusterpolicy.NodeID]int{}
		sent := map[int]bool{}
		now, next := t0, 0
		check := func(bs []Batch[int]) {
			t.Helper()
			for _, bt := range bs {
				for _, r := range bt.Results {
					if sent[r] {
						t.Fatalf("seed %d: result %d sent twice", seed, r)
					}
					if lenderOf[r] != bt.Lender {
						t.Fatalf("seed %d: result %d of %s sent to %s", seed, r, lenderOf[r], bt.Lender)
					}
					if r < lastSent[bt.Lender] {
						t.Fatalf("seed %d: result %d to %s after %d", seed, r, bt.Lender, lastSent[bt.Lender])
					}
					if w := now.Sub(doneAt[r]); w > hold {
						t.Fatalf("seed %d: result %d waited %v, more than %v", seed, r, w, hold)
					}
					sent[r], lastSent[bt.Lender] = true, r
				}
			}
		}
		for range 400 {
			// The driver calls Due when Next says, before any later event.
			step := time.Duration(rng.IntN(80)) * time.Microsecond
			if due, ok := b.Next(); ok && due.Before(now.Add(step)) {
				now = due
				check(b.Due(now))
				continue
			}
			now = now.Add(step)
			id := lenders[rng.IntN(len(lenders))]
			switch k := rng.IntN(10); {
			case k < 3:
				n := 1 + rng.IntN(4)
				running[id] += n
				b.Borrowed(id, n)
			case k < 9 && running[id] > 0:
				running[id]--
				next++
				doneAt[next], lenderOf[next] = now, id
				check(b.Done(now, id, next, arrivedAt(rng, t0, now)))
			case k == 9:
				check(b.Idle(now))
				if b.Held() != 0 {
					t.Fatalf("seed %d: %d held after Idle", seed, b.Held())
				}
			}
			held := 0
			for r := 1; r <= next; r++ {
				if !sent[r] {
					held++
				}
			}
			if held != b.Held() {
				t.Fatalf("seed %d: Held %d, but %d results unsent", seed, b.Held(), held)
			}
		}
		check(b.Idle(now))
		for r := 1; r <= next; r++ {
			if !sent[r] {
				t.Fatalf("seed %d: result %d never sent", seed, r)
			}
		}
	}
}

// arrivedAt is a random time from t0 to now.
func arrivedAt(rng *rand.Rand, t0, now time.Time) time.Time {
	return t0.Add(time.Duration(rng.Int64N(int64(now.Sub(t0)) + 1)))
}
