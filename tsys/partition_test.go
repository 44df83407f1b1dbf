package tsys

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestChunkSizerConverges: fed the times of iterations of a fixed cost,
// the chunk size settles within a factor of two of chunkTarget's worth,
// growing at most maxGrowth times a step, and falls at once when the
// iterations become costlier. Iterations longer than the target run one
// a chunk, but for a trial of two now and then.
func TestChunkSizerConverges(t *testing.T) {
	for _, per := range []time.Duration{1, 3, 50, 1000, 40_000, time.Millisecond} {
		k := newChunkSizer(0, 0, 0)
		twos := 0
		for i := range 40 {
			before := k.n
			k.observe(k.n, time.Duration(k.n)*per)
			if k.n > before*maxGrowth && per < chunkTarget {
				t.Fatalf("%v per iteration: grew from %d to %d", per, before, k.n)
			}
			if per >= chunkTarget && i > 0 {
				if k.n > 2 {
					t.Fatalf("%v per iteration: chunks of %d", per, k.n)
				}
				if k.n == 2 {
					twos++
				}
			}
		}
		if twos > 40/probeEvery+1 {
			t.Errorf("%v per iteration: %d trial chunks of two in 40", per, twos)
		}
		took := time.Duration(k.n) * per
		if per < chunkTarget && (took < chunkTarget/2 || took > 2*chunkTarget) {
			t.Errorf("%v per iteration: settled on %d iterations, %v a chunk", per, k.n, took)
		}
		// The iterations become 100 times costlier: one chunk later the
		// size is back near the target.
		k.observe(k.n, 100*took)
		if now := time.Duration(k.n) * per * 100; k.n > 1 && now > 2*chunkTarget {
			t.Errorf("%v per iteration, then 100 times more: chunks of %v", per, now)
		}
	}
}

// callCost is a chunk's time when every call of the body costs 100 us
// (it allocates a large result, say) and every iteration 5 ns.
func callCost(n int64) time.Duration { return 100*time.Microsecond + time.Duration(n)*5 }

// TestChunkSizerAmortisesACallsCost: when the call of the body costs more
// than the target, the chunks grow until a call is a small part of a
// chunk, instead of shrinking to one iteration; a piece lent with what the
// lender learned keeps its size; and after a chunk that took 50 times too
// long (the worker was descheduled), the size recovers.
func TestChunkSizerAmortisesACallsCost(t *testing.T) {
	k := newChunkSizer(0, 0, 0)
	for range 60 {
		k.observe(k.n, callCost(k.n))
	}
	for i := range 40 {
		k.observe(k.n, callCost(k.n))
		if k.n < 5000 {
			t.Fatalf("chunk %d after settling: %d iterations, a call of the body each", i, k.n)
		}
	}
	settled := k.n
	lent := newChunkSizer(settled, time.Duration(float64(callCost(settled))/float64(settled)), k.least)
	lent.observe(settled, callCost(settled))
	if lent.n < settled {
		t.Errorf("a lent piece's first chunk: size %d, lender's %d", lent.n, settled)
	}
	k.observe(k.n, 50*callCost(k.n))
	for range 60 {
		k.observe(k.n, callCost(k.n))
	}
	if k.n < 5000 {
		t.Errorf("60 chunks after a slow one: %d iterations a chunk", k.n)
	}
}

// TestChunkSizerLentPieceOfCostlierIterations: a piece lent with a size
// learned on cheap iterations, whose own iterations cost 100 times more,
// shrinks after its first chunk.
func TestChunkSizerLentPieceOfCostlierIterations(t *testing.T) {
	k := newChunkSizer(1000, 20, 0)
	k.observe(1000, 1000*2*time.Microsecond)
	if k.n > 10 {
		t.Fatalf("iterations of 2 us in chunks of %d", k.n)
	}
}

// TestChunkSizerTrustsShortChunks: a chunk cut short by the end of a range
// is timed per iteration like a full one.
func TestChunkSizerTrustsShortChunks(t *testing.T) {
	k := newChunkSizer(1000, 0, 0)
	k.observe(10, 10*chunkTarget) // ten iterations of a whole target each
	if k.n != 1 {
		t.Fatalf("10 iterations taking 10 targets: next chunk %d, want 1", k.n)
	}
}

// TestCostStatsCV: the coefficient of variation of known costs, and the
// prior until two chunks are seen.
func TestCostStatsCV(t *testing.T) {
	var s costStats
	if s.cv(0.7) != 0.7 {
		t.Fatal("no chunks seen: want the prior")
	}
	s.observe(10, 10*time.Microsecond) // 1 us each
	if s.cv(0.7) != 0.7 {
		t.Fatal("one chunk seen: want the prior")
	}
	s.observe(10, 30*time.Microsecond) // 3 us each
	// Mean 2, sample deviation sqrt(2).
	if got := s.cv(0); math.Abs(got-math.Sqrt2/2) > 1e-9 {
		t.Fatalf("cv of 1 and 3 = %v, want %v", got, math.Sqrt2/2)
	}
}

// TestCutFollowsDAF: factoring's pieces are R/(x P) with Cesar et al.'s
// x0 = 1 + cv sqrt(P/2) for the first and x = x0 + 1 after, and halving
// exposes the upper half.
func TestCutFollowsDAF(t *testing.T) {
	cases := []struct {
		part       partitioner
		lo, hi     int64
		workers    int
		cv         float64
		first      bool
		wantExpose int64
	}{
		{halving, 0, 1000, 2, 0, true, 500},
		{halving, 10, 21, 2, 0, false, 6},
		{factoring, 0, 1000, 2, 0, true, 500},  // x0 = 1: R/P
		{factoring, 0, 1000, 2, 0, false, 250}, // x = 2: R/2P
		{factoring, 0, 1200, 2, 1, true, 300},  // x0 = 2
		{factoring, 0, 1200, 2, 1, false, 200}, // x = 3
		{factoring, 0, 8000, 8, 0.5, false, 334},
	}
	for _, c := range cases {
		at := c.part.cut(c.lo, c.hi, 1, c.workers, c.cv, c.first)
		if got := c.hi - at; got != c.wantExpose {
			t.Errorf("%+v: exposed %d, want %d", c, got, c.wantExpose)
		}
	}
}

// TestCutKeepsPiecesWhole: whatever the partitioner, costs and workers,
// both pieces of a cut hold at least minPiece iterations when the range
// holds two.
func TestCutKeepsPiecesWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 3))
	for range 10_000 {
		lo := r.Int64N(1000) - 500
		minPiece := 1 + r.Int64N(64)
		hi := lo + 2*minPiece + r.Int64N(1<<20)
		part := partitioner(r.IntN(2))
		at := part.cut(lo, hi, minPiece, 1+r.IntN(64), r.Float64()*5, r.IntN(2) == 0)
		if at-lo < minPiece || hi-at < minPiece {
			t.Fatalf("%v cut [%d, %d) at %d with pieces of at least %d", part, lo, hi, at, minPiece)
		}
	}
}
