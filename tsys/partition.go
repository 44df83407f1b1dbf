package tsys

import (
	"math"
	"time"
)

// The policies that split a loop, pure so that tests drive them with
// made-up times: how many iterations make a chunk (chunkSizer), how
// uneven the iterations are (costStats), and where a range is cut for a
// thief (partitioner). split.go runs them.

// chunkTarget is the work a chunk of an adaptive loop should hold: the
// loop looks for hungry workers between chunks, so a chunk bounds how long
// a thief waits for the owner to expose more of its range, and it must be
// long enough that a check (a clock read and, with chunks this long, a
// question to the inlining policy) costs nothing measurable beside it
// (BenchmarkLoopChunkTarget; bench/README.md, "Loops"). A variable only so
// that the benchmark can try others (export_test.go).
var chunkTarget = 20 * time.Microsecond

// maxGrowth bounds how fast a chunk grows from one to the next: a first
// chunk of cheap iterations is timed too coarsely to trust a larger step.
const maxGrowth = 16

// chunkSizer learns how many iterations take about chunkTarget. It starts
// from one iteration (or from what the loop that lent the piece learned),
// so that a loop of costly iterations runs one before it is timed.
//
// A chunk's time is the cost of its iterations plus a cost per call of
// the body (a result it allocates, the combine after it). When the call's
// cost is about the target or more, no number of iterations makes a chunk
// of the target's length, and sizing by length alone would shrink the
// chunks to one iteration, paying the call once per iteration. So a chunk
// longer than the target, or of the target's length and a few iterations,
// is now and then followed by a trial of twice as many iterations: if that cuts an iteration's cost by a fifth, the cost is
// the call's, and the chunks keep doubling while doubling pays, up to
// eight times the shortest chunk seen (a bound on what timing noise, or
// a run of cheap draws from uneven iterations, can make look like a
// gain). The size a trial paid for is the least it shrinks to, until the
// iterations become costlier than they were when the size was set: then
// it shrinks to the target and forgets that least.
type chunkSizer struct {
	n int64
	// refPer is the cost of an iteration when n was last set, in ns (0:
	// not yet timed).
	refPer float64
	// lastN and lastPer are the size and the cost of an iteration of the
	// chunk before.
	lastN   int64
	lastPer float64
	// trying: n was doubled to see whether fewer calls pay.
	trying bool
	// trialIn counts the chunks until the next trial.
	trialIn int
	// least is the largest size whose trial paid.
	least int64
	// shortest is the shortest chunk since least was last forgotten, but
	// for the first chunk timed: a piece's first chunk is the first call of
	// its body (For's combines nothing after it, Fold makes its
	// result in it), and may cost otherwise than the rest.
	shortest time.Duration
	timed    bool
}

// trialEvery is how many chunks run between two trials of a chunk twice as
// long.
const trialEvery = 4

// fewIterations is the size up to which a chunk of about the target is
// tried doubled now and then.
const fewIterations = 16

// newChunkSizer starts from what the lender learned: its chunk size n,
// the nanoseconds an iteration took and its least size (zeros: nothing
// learned).
func newChunkSizer(n int64, per float64, least int64) chunkSizer {
	if n > 0 && per > 0 {
		return chunkSizer{n: n, refPer: per, lastN: n, lastPer: per, least: least}
	}
	return chunkSizer{n: 1}
}

// observe takes the time a chunk of ran iterations took.
func (k *chunkSizer) observe(ran int64, took time.Duration) {
	if ran <= 0 {
		return
	}
	took = max(took, 1)
	per := float64(took) / float64(ran)
	lastN, lastPer, trying := k.lastN, k.lastPer, k.trying
	k.lastN, k.lastPer, k.trying = ran, per, false
	if k.timed && (k.shortest == 0 || took < k.shortest) {
		k.shortest = took
	}
	k.timed = true
	want := float64(chunkTarget) / per
	switch {
	case trying && ran > lastN && per < 0.8*lastPer:
		// The trial paid: the call costs as much as its iterations.
		k.least, k.refPer = max(k.least, ran), per
		k.try(ran, took)
	case trying:
		// It did not: back to the size before it.
		k.n = lastN
	case took < chunkTarget/2:
		// Short: grow toward the target. A chunk cut short by the end of
		// the range (fewer than n) says nothing against n.
		if ran >= k.n {
			k.n, k.refPer = int64(min(want, float64(k.n)*maxGrowth, math.MaxInt32)), per
		}
	case k.refPer > 0 && per >= 1.25*k.refPer || k.refPer == 0 && ran > 1:
		// The iterations became costlier than when n was set (or this is
		// the first chunk timed): shrink to the target, and forget least.
		k.least, k.shortest = 0, took
		k.n, k.refPer = max(1, int64(want)), per
	default:
		// A chunk of about the target or longer, its iterations costing
		// what they did: now and then try twice as many, if it is longer
		// than the target, or of a few iterations (a call that costs
		// about the target, with cheap iterations, makes chunks of one).
		if k.trialIn--; k.trialIn < 0 && ran >= k.n && (took > 2*chunkTarget || took < chunkTarget || ran <= fewIterations) {
			k.trialIn = trialEvery
			k.try(ran, took)
		}
	}
}

// try doubles the size for a trial, unless the doubled chunk would take
// more than eight times the shortest chunk seen: a call's cost is at most
// that, and a chunk four times the call's spends three quarters of its
// time on iterations.
func (k *chunkSizer) try(ran int64, took time.Duration) {
	if k.shortest > 0 && 2*took > 8*k.shortest {
		return
	}
	k.n, k.trying = min(2*ran, math.MaxInt32), true
}

// cost is the nanoseconds an iteration took in the last chunk timed, for
// the pieces the loop lends.
func (k *chunkSizer) cost() float64 { return k.lastPer }

// costStats keeps the mean and variance of the cost of one iteration, as
// seen chunk by chunk (Welford's method): the unevenness of a loop at the
// scale at which its work is handed out, which is what factoring needs.
type costStats struct {
	n        int
	mean, m2 float64
}

func (s *costStats) observe(ran int64, took time.Duration) {
	if ran <= 0 {
		return
	}
	x := float64(took) / float64(ran)
	s.n++
	d := x - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (x - s.mean)
}

// cv is the coefficient of variation of the costs seen, or prior until
// two chunks have been seen.
func (s *costStats) cv(prior float64) float64 {
	if s.n < 2 || s.mean <= 0 {
		return prior
	}
	return math.Sqrt(s.m2/float64(s.n-1)) / s.mean
}

// partitioner decides where to cut a range [lo, hi) when a piece of it is
// exposed to thieves: [cut, hi) goes to them, [lo, cut) stays.
type partitioner uint8

const (
	// halving exposes half of what is left, as rayon and TBB's auto
	// partitioner do: a thief takes as much as the owner keeps, and splits
	// it again when it has thieves of its own.
	halving partitioner = iota
	// factoring is Cesar et al.'s dynamic adjusting factoring (DAF) as a
	// thief's share: with P workers and a coefficient of variation cv of
	// the iterations' costs, the first piece exposed holds R/(x0 P) of the
	// R iterations left, x0 = 1 + cv sqrt(P/2), later ones R/(x P),
	// x = 2 + cv sqrt(P/2). Pieces shrink as the range does, and faster
	// the more uneven the costs, so the last pieces handed out are small
	// enough to even out the workers' finishing times.
	factoring
)

// cut returns where to cut [lo, hi): no piece, kept or exposed, is
// smaller than minPiece. first says whether this is the first piece the
// whole loop exposes: factoring sizes it as a piece of DAF's first batch
// and all later ones as pieces of its later batches (a work stealer hands
// out one piece at a time, not a batch of P). P is this node's workers,
// even when the thieves are other nodes.
func (p partitioner) cut(lo, hi, minPiece int64, workers int, cv float64, first bool) int64 {
	left := hi - lo
	minPiece = max(minPiece, 1)
	var piece int64
	switch p {
	case factoring:
		x := 1 + max(cv, 0)*math.Sqrt(float64(workers)/2)
		if !first {
			x++
		}
		piece = int64(math.Ceil(float64(left) / (x * float64(max(workers, 1)))))
	default:
		piece = left - left/2
	}
	piece = min(max(piece, minPiece), left-minPiece)
	return hi - piece
}
