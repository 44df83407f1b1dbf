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
		if twos > 40/trialEvery+1 {
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
	lent := newChunkSizer(settled, float64(callCost(settled))/float64(settled), k.least)
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

// The cases below are the sizer's hard ones: noise, spikes, rising costs,
// a call's cost near the target, short tails, lent pieces.

// TestChunkSizer_LentPieceForgetsSubNanosecondCost: an iteration cheaper than
// a nanosecond (a sum) is carried to a lent piece through time.Duration,
// which truncates it to 0; the piece's sizer then takes it for "nothing
// learned" and starts again from one iteration, and forgets least too.
func TestChunkSizer_LentPieceForgetsSubNanosecondCost(t *testing.T) {
	k := newChunkSizer(0, 0, 0)
	for range 20 {
		k.observe(k.n, time.Duration(float64(k.n)*0.4)) // 0.4 ns an iteration
	}
	if k.n < 10_000 {
		t.Fatalf("lender settled on %d", k.n)
	}
	// As runAdaptive's lend and the piece's runAdaptive do (split.go:148, :140).
	var p plan
	p.Chunk, p.Per, p.Least = k.n, float32(k.cost()), k.least
	thief := newChunkSizer(p.Chunk, float64(p.Per), p.Least)
	if thief.n != k.n {
		t.Errorf("lender's chunk %d (%.2f ns an iteration), plan.Per %v: the piece starts at %d", k.n, k.lastPer, p.Per, thief.n)
	}
	// The same with a call cost: 100 us a call, 0.3 ns an iteration.
	k = newChunkSizer(0, 0, 0)
	cc := func(n int64) time.Duration { return 100*time.Microsecond + time.Duration(float64(n)*0.3) }
	for range 200 {
		k.observe(k.n, cc(k.n))
	}
	p.Chunk, p.Per, p.Least = k.n, float32(k.cost()), k.least
	thief = newChunkSizer(p.Chunk, float64(p.Per), p.Least)
	calls := 0
	for done := int64(0); done < 50*k.n && thief.n < k.n/2; done += thief.n {
		thief.observe(thief.n, cc(thief.n))
		calls++
	}
	if calls > 2 {
		t.Errorf("call-cost loop: lender's chunk %d, least %d, %.3f ns an iteration; the piece took %d chunks of >=100 us to get back to half of it", k.n, k.least, k.lastPer, calls)
	}
}

// TestChunkSizer_RisingCostDrifts: iterations whose cost rises steadily
// (a triangular loop: iteration i costs i/100 ns, 4 us at the end) keep
// chunks near the target: the sizer compares an iteration's cost with its
// cost when the size was set, not with the chunk before, from which it
// never rises by much.
func TestChunkSizer_RisingCostDrifts(t *testing.T) {
	k := newChunkSizer(0, 0, 0)
	var i int64
	worst := time.Duration(0)
	for i < 400_000 {
		n := k.n
		took := time.Duration((2*i + n - 1) * n / 2 / 100) // sum of i..i+n-1, /100 ns
		k.observe(n, took)
		i += n
		worst = max(worst, took)
	}
	// One growth step of maxGrowth, timed on the cheap first iterations,
	// may land on iterations 20 times costlier: up to 5 targets, once.
	if worst > 5*chunkTarget {
		t.Errorf("iteration i costs i/100 ns (at most 4 us): a chunk took %v, %.0f times the target (chunk size now %d)", worst, float64(worst)/float64(chunkTarget), k.n)
	}
}

// TestChunkSizer_LeastOutlivesCheapIterations: least, learned while the
// call's cost dominated cheap iterations, does not hold the chunks at its
// size once the iterations become costly: they shrink to what the call's
// cost makes worth it, a few times the call.
func TestChunkSizer_LeastOutlivesCheapIterations(t *testing.T) {
	k := newChunkSizer(0, 0, 0)
	for range 200 {
		k.observe(k.n, 100*time.Microsecond+time.Duration(k.n)/2) // 100 us a call, 0.5 ns an iteration
	}
	least := k.least
	var took time.Duration
	for range 40 {
		took = 100*time.Microsecond + time.Duration(k.n)*time.Microsecond // now 1 us an iteration
		k.observe(k.n, took)
	}
	if k.n > least/100 || took > 8*100*time.Microsecond {
		t.Errorf("least %d learned on cheap iterations; iterations of 1 us later: chunks of %d, %v each", least, k.n, took)
	}
}

// TestChunkSizer_NoiseRatchetsLeast: iterations longer than the target whose
// costs vary (no call cost at all): a probe of two that happens to draw
// cheaper iterations "pays", least doubles, and least never comes down.
func TestChunkSizer_NoiseRatchetsLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	worstLeast := int64(0)
	for trial := 0; trial < 20; trial++ {
		k := newChunkSizer(0, 0, 0)
		for range 2000 {
			var took time.Duration
			for range k.n {
				// 50 us mean, exponential: an uneven loop.
				took += time.Duration(rng.ExpFloat64() * 50_000)
			}
			k.observe(k.n, took)
		}
		worstLeast = max(worstLeast, k.least)
		if trial == 0 {
			t.Logf("trial 0: least %d, n %d", k.least, k.n)
		}
	}
	if worstLeast > 1 {
		t.Errorf("iterations of 50 us (2.5 targets) on average, no call cost: least grew to %d, so chunks never go below %d iterations (%v)", worstLeast, worstLeast, time.Duration(worstLeast)*50*time.Microsecond)
	}
}

// TestChunkSizer_ShortTailShrinks: the last chunk of a range (a few iterations
// before a taken-back piece or the end) is timed with the per-call cost
// and clock read spread over few iterations; a fast chunk then sets the
// size to min(want, 16n), which can be far below n (and below least).
func TestChunkSizer_ShortTailShrinks(t *testing.T) {
	k := newChunkSizer(0, 0, 0)
	const call = 60                                                     // ns: a clock read and a call
	f := func(n int64) time.Duration { return time.Duration(call + n) } // 1 ns an iteration
	for range 20 {
		k.observe(k.n, f(k.n))
	}
	before := k.n
	k.observe(3, f(3)) // a tail of 3 iterations
	if k.n < before/2 {
		t.Errorf("a 3-iteration tail chunk, fast, shrank the chunk from %d to %d", before, k.n)
	}
}

// TestChunkSizer_CallCostNearTheTarget: a call of the body costing between
// half and twice the target (here 30 us; a result of a few tens of KB
// allocated per call) with cheap iterations: the first chunk of one
// iteration is "about right" by length, and the size never moves: one
// iteration per call for the whole loop.
func TestChunkSizer_CallCostNearTheTarget(t *testing.T) {
	for _, call := range []time.Duration{8 * time.Microsecond, 15 * time.Microsecond, 30 * time.Microsecond} {
		k := newChunkSizer(0, 0, 0)
		f := func(n int64) time.Duration { return call + time.Duration(n) } // 1 ns an iteration
		for range 200 {
			k.observe(k.n, f(k.n))
		}
		share := float64(call) / float64(f(k.n))
		if share > 0.5 {
			t.Errorf("call %v, iterations 1 ns: settled on %d iterations a chunk, the call %.0f%% of each chunk", call, k.n, 100*share)
		}
	}
}

// TestChunkSizer_NoisyCallCostRatchets: a call cost above the target (100 us)
// and cheap iterations (5 ns), chunk times with +-20% noise: every probe
// that the noise makes look 20% cheaper per iteration doubles least, which
// never comes down.
func TestChunkSizer_NoisyCallCostRatchets(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 6; trial++ {
		noise := []float64{0.05, 0.1, 0.15, 0.2, 0.2, 0.2}[trial]
		k := newChunkSizer(0, 0, 0)
		var took, total, at time.Duration
		for range 3000 {
			took = time.Duration(float64(100*time.Microsecond+time.Duration(k.n)*5) * (1 + noise*(2*rng.Float64()-1)))
			k.observe(k.n, took)
			total += took
			if k.n >= 1<<20 && at == 0 {
				at = total
			}
		}
		t.Logf("trial %d (noise +-%.0f%%): chunks of 1M iterations (5 ms) after %v of work", trial, 100*noise, at)
		// Without noise it settles near 30-60 K iterations (~250 us).
		if k.least > 1<<18 {
			t.Errorf("trial %d: least %d, chunks of %d iterations, %v each", trial, k.least, k.n, took)
		}
	}
}

// TestChunkSizer_SpikesRatchet: as above without uniform noise, but one chunk
// in 50 takes 3 times as long (a GC assist, a preemption): a probe after a
// slow chunk "pays", and least doubles for good.
func TestChunkSizer_SpikesRatchet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	k := newChunkSizer(0, 0, 0)
	var took time.Duration
	var total time.Duration
	chunks := 0
	for total < 10*time.Second {
		took = 100*time.Microsecond + time.Duration(k.n)*5
		if rng.IntN(50) == 0 {
			took *= 3
		}
		k.observe(k.n, took)
		total += took
		chunks++
	}
	t.Logf("after %v of work in %d chunks: least %d, n %d", total, chunks, k.least, k.n)
	if k.least > 1<<18 {
		t.Errorf("after %v of work in %d chunks: least %d, chunks of %d iterations, %v each", total, chunks, k.least, k.n, took)
	}
}
