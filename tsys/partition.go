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
// cost alone is longer than the target, no number of iterations makes a
// chunk of the target's length, and sizing by length alone would shrink
// the chunks to one iteration, paying the call once per iteration. So
// the sizer looks at the cost of an iteration, chunk to chunk: it shrinks
// a long chunk only when its iterations became costlier (or on the first
// chunk it times), and when one iteration is longer than the target it
// tries two: if that halves the cost of an iteration, the cost is the
// call's, and the chunks grow for as long as growing pays.
type chunkSizer struct {
	n int64
	// last is the size and the cost of an iteration of the chunk before,
	// or of the lender's last chunk (size 0: none timed yet).
	lastN   int64
	lastPer float64
	// growing: n was doubled to see whether fewer calls pay.
	growing bool
	// least is the largest size whose doubling paid: below it the call's
	// cost dominates, so the chunks never shrink below it (a chunk that
	// took long because the worker was descheduled would otherwise shrink
	// them, and each smaller chunk, paying the call over fewer
	// iterations, would look costlier still).
	least int64
	// probeIn counts the long chunks until the next trial of twice as
	// many iterations.
	probeIn int
}

// probeEvery is how many long chunks run between two trials of a chunk
// twice as long.
const probeEvery = 4

// newChunkSizer starts from what the lender learned: its chunk size n,
// the time an iteration took and its least size (zeros: nothing
// learned).
func newChunkSizer(n int64, per time.Duration, least int64) chunkSizer {
	if n > 0 && per > 0 {
		return chunkSizer{n: n, lastN: n, lastPer: float64(per), least: least}
	}
	return chunkSizer{n: 1}
}

// observe takes the time a chunk of ran iterations took. A chunk cut short
// by the end of the range says as much per iteration as a full one.
func (k *chunkSizer) observe(ran int64, took time.Duration) {
	if ran <= 0 {
		return
	}
	took = max(took, 1)
	per := float64(took) / float64(ran)
	lastN, lastPer, growing := k.lastN, k.lastPer, k.growing
	k.lastN, k.lastPer, k.growing = ran, per, false
	want := float64(chunkTarget) / per
	switch {
	case took < chunkTarget/2:
		k.n = int64(min(want, float64(k.n)*maxGrowth, math.MaxInt32))
	case took <= 2*chunkTarget:
		// About right.
	case ran > lastN && lastN > 0 && per < 0.8*lastPer:
		// Doubling cut the cost of an iteration by a fifth or more: the
		// call costs as much as its iterations, and fewer calls pay.
		// (Timed chunks are noisy: a collection or a page fault may hide
		// a gain, which the next trial finds.)
		k.n, k.growing, k.least = min(2*ran, math.MaxInt32), true, max(k.least, ran)
	case growing:
		// Doubling did not pay: back to the size before it.
		k.n = lastN
	case lastN > 0 && per >= 1.25*lastPer || lastN == 0 && ran > 1:
		// The iterations became costlier (or this is the first chunk
		// timed): shrink to the target.
		k.n = max(1, k.least, int64(want))
	default:
		// One long iteration, or iterations that cost what they did in a
		// chunk longer than the target: the length is the iteration's
		// own, or the call's. Now and then try twice as many.
		if k.probeIn--; k.probeIn < 0 {
			k.n, k.probeIn, k.growing = min(2*ran, math.MaxInt32), probeEvery, true
		}
	}
}

// cost is the time an iteration took in the last chunk timed, for the
// pieces the loop lends.
func (k *chunkSizer) cost() time.Duration { return time.Duration(k.lastPer) }

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
