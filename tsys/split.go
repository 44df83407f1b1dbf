package tsys

import (
	"fmt"
	"time"

	"github.com/tsys-go/tsys/internal/loopsplit"
)

// How a loop is split.
//
// A loop runs its range [lo, hi) in chunks, each one call of the body over
// a piece [lo', hi'), so the inner loop is the program's own plain Go loop.
// Between chunks it asks NewTS's allowCCall, as a spawn would: are enough
// ready tasks in this worker's deque already (Ctx.AllowCCall, a decrement
// on its fast path)? If so the next chunk runs here. If not (the worker
// has no stealable work, because thieves took it or the loop just began,
// or other nodes want work) the loop cuts off a piece of what is left and
// forks it as a task, where a thief or another node may take it, and goes
// on with the rest: lazy binary splitting. When its own range is done,
// the loop takes back the piece next to it if nobody took it
// (sched.Executor.Unfork) and runs on into it, on the same result, cutting
// pieces off it by the same rule; a piece that was taken is joined. So a loop with no thieves about is one plain loop with a question
// between chunks, and a loop with many splits as much as they take, the
// stolen pieces again; no grain is chosen by the program. A loop that
// nobody could take a piece of (one worker, and no other node asking)
// runs whole, though allowCCall, which keeps K tasks ready whoever may
// take them, says no. A chunk run on
// a yes counts as an inlined spawn in the run's Stats, a piece forked as
// a spawn: the inline ratio of a loop says how much of it could have been
// lent and was not.
//
// A chunk holds about chunkTarget of work: the loop times each chunk and
// sizes the next from it (chunkSizer), from one iteration up, and a piece
// it lends carries what it learned. A piece is never cut smaller than a
// chunk, nor, but for workers already hungry when the loop begins, before
// the loop has run half a chunkTarget of work, so a short loop costs a few
// clock reads and no task. Where the piece is cut is the partitioner's choice: half of what
// is left (halving, the default) or Cesar et al.'s factoring share, which
// shrinks with the range and with the unevenness of the iterations.
//
// Grain(g) asks for the classic fixed split instead: the range halved down
// to pieces of at most g iterations, each one chunk, the forks inlined by
// the load-based policy as any fork is. The pieces then do not depend on
// timing, so a floating-point reduction rounds the same way in every run,
// which the adaptive split does not promise.

// LoopOption changes how a loop is split (see Grain).
type LoopOption struct{ set func(*plan) }

// Grain fixes the split: the range is halved down to pieces of at most g
// iterations, each run by one call of the body. The pieces, and so the
// rounding of a floating-point reduction, are then the same in every run.
// Without it the loop sizes its pieces itself, from the time they take and
// from whether other workers are hungry, which suits loops whose
// iterations cost unevenly or unknowably; g < 1 means that.
func Grain(g int) LoopOption { return LoopOption{func(p *plan) { p.Grain = int64(max(g, 0)) }} }

// plan is how a piece of a loop is split: the options the loop was run
// with and what its chunks learned, carried with each piece it lends (its
// fields are exported for the codec).
type plan struct {
	Grain int64   // Grain's g; 0 for the adaptive split
	Chunk int64   // iterations per chunk, as learned
	Per   float32 // nanoseconds an iteration took, as learned
	Least int64   // the least chunk worth a call of the body, as learned
	CV    float32 // the iterations' coefficient of variation, as measured
	Part  uint8   // the partitioner
	Later bool    // the loop has exposed a piece already (factoring's first batch is over)
}

func planOf(c *Ctx, opts []LoopOption) plan {
	var p plan
	for _, o := range opts {
		if o.set != nil { // the zero LoopOption changes nothing
			o.set(&p)
		}
	}
	if c != nil && p.Grain == 0 && loopsplit.Factoring(c.Context()) {
		p.Part = uint8(factoring) // the lab's choice (package loopsplit)
	}
	return p
}

// shape is what the split needs of a loop: how a piece begins its result
// with its first chunk and folds the next chunks into it, how two pieces'
// results combine, and the task that runs a piece. A loop whose body
// returns a result per chunk (For's) folds by combining;
// Fold's body folds into the result itself.
type shape[E, R any] struct {
	first   func(c *Ctx, env E, lo, hi int) R
	next    func(c *Ctx, env E, lo, hi int, acc R) R
	combine func(a, b R) R
	// task is asked only when a piece is forked, since finding the task of
	// a loop of closures costs a lookup that a short loop need not pay.
	task func() *Task[span[E], R]
	// lendable: pieces may go to other nodes, so their wanting work is a
	// reason to cut them (a loop of closures stays on its node).
	lendable bool
	// form names the loop's bodies in a failure (body.go): the loop's
	// registered name, or its closure form's.
	form string
}

// runSplit runs the loop over s's range, split as s.Plan says, and returns
// the pieces' results combined in index order (R's zero value for an
// empty range). The range, the one run here and every piece it lends, is
// a closure body of its own (body.go), whose Ctx the chunks get.
func runSplit[E, R any](c *Ctx, sh *shape[E, R], s span[E]) R {
	switch {
	case s.Lo >= s.Hi:
		var zero R
		return zero
	case s.Hi-s.Lo < 0:
		panic(fmt.Sprintf("tsys: a loop over [%d, %d) has more than math.MaxInt iterations; split the range into loops of fewer", s.Lo, s.Hi))
	case c == nil:
		needCtx(c, sh.form)
	case s.Plan.Grain > 0:
		return callBody(c, sh.form, func(c *Ctx) R { return runHalves(c, sh, s) })
	}
	return callBody(c, sh.form, func(c *Ctx) R { return runAdaptive(c, sh, s) })
}

// runHalves is the fixed split of Grain: halves down to the grain, the
// first forked, the second run here.
func runHalves[E, R any](c *Ctx, sh *shape[E, R], s span[E]) R {
	if s.Hi-s.Lo <= s.Plan.Grain {
		c.stopIfEnded()
		return sh.first(c, s.Env, int(s.Lo), int(s.Hi))
	}
	mid := s.Lo + (s.Hi-s.Lo)/2
	first := sh.task().Fork(c, span[E]{Env: s.Env, Lo: s.Lo, Hi: mid, Plan: s.Plan})
	second := runHalves(c, sh, span[E]{Env: s.Env, Lo: mid, Hi: s.Hi, Plan: s.Plan})
	return sh.combine(first.Join(c), second)
}

// runAdaptive is lazy splitting (see the top of this file).
func runAdaptive[E, R any](c *Ctx, sh *shape[E, R], s span[E]) R {
	// The pieces lent, right to left: the last is next to the range run
	// here. A slice, made at the first fork, not an array on the stack: a
	// Forked holds an R, and a large R (an array of counts) would make
	// every loop clear a large frame.
	var forks []lent[R]
	part := partitioner(s.Plan.Part)
	size := newChunkSizer(s.Plan.Chunk, float64(s.Plan.Per), s.Plan.Least)
	var costs costStats
	first := !s.Plan.Later
	lo, hi := s.Lo, s.Hi
	lend := func(cv float64) {
		at := part.cut(lo, hi, size.n, c.sched().View().Workers(), cv, first)
		first = false
		piece := span[E]{Env: s.Env, Lo: at, Hi: hi, Plan: s.Plan}
		piece.Plan.Chunk, piece.Plan.Per, piece.Plan.Least = size.n, float32(size.cost()), size.least
		piece.Plan.CV, piece.Plan.Later = float32(cv), true
		forks = append(forks, lent[R]{sh.task().Fork(c, piece), at, hi})
		hi = at
	}

	// Workers of this node that are looking for work now get a piece each
	// before the first chunk: a loop of a few costly iterations must not
	// run its first ones alone while they wait.
	for range c.sched().View().Hungry() {
		// Once enough tasks are ready, the fork would be a plain call,
		// which would split its piece again at once, down to single
		// iterations: the hungry take what is ready.
		if hi-lo < 2*size.n || sh.allowCut(c) {
			break
		}
		lend(float64(s.Plan.CV))
	}
	// Otherwise no piece is cut before the loop has run half a chunk's
	// work: pieces are then sized by measured chunks, and a loop too short
	// to be worth splitting runs as one, without a fork
	// (BenchmarkLoopSmall).
	n := min(size.n, hi-lo)
	start := sinceEpoch()
	began := start
	acc := sh.first(c, s.Env, int(lo), int(lo+n))
	for {
		now := sinceEpoch()
		took := now - began
		began = now
		size.observe(n, took)
		if part == factoring {
			costs.observe(n, took)
		}
		lo += n
		// The range run here is done: take back the piece next to it if
		// nobody took it, and go on into it with the same result (no
		// task, no combine, and Fold's result grows on); join the pieces
		// that were taken.
		if lo >= hi {
			for lo >= hi && len(forks) > 0 {
				f := forks[len(forks)-1]
				forks = forks[:len(forks)-1]
				if f.forked.unfork(c) {
					lo, hi = f.lo, f.hi
				} else {
					acc = sh.combine(acc, f.forked.Join(c))
				}
			}
			if lo >= hi {
				return acc
			}
			began = sinceEpoch() // a join's wait is no chunk's
		}
		if now-start >= chunkTarget/2 && hi-lo >= 2*size.n && !sh.allowCut(c) && c.sched().View().MayBeStolen(sh.lendable) {
			lend(costs.cv(float64(s.Plan.CV)))
		}
		n = min(size.n, hi-lo)
		// The chunk is a plain call, asked about only when a piece might
		// be cut: after a failure it must not start.
		c.stopIfEnded()
		acc = sh.next(c, s.Env, int(lo), int(lo+n), acc)
	}
}

// allowCut is Ctx.AllowCCall asked before the loop cuts a piece off its
// range, which it then forks: a yes keeps the range whole.
func (sh *shape[E, R]) allowCut(c *Ctx) bool {
	if c.fast.Credit--; int(c.fast.Credit) < 0 {
		return sh.askCut(c)
	}
	return true
}

// askCut is allowCut's slow path. Under the check of copies, AllowCCall always
// answers no (its yes might run a lendable task's body), which would make
// a loop whose pieces stay on this node cut its range down to single
// chunks; so it asks for the kind of the loop's pieces, looked up only
// then, and gets the policy's answer, as without the check. A no also
// hands out a joined frame to reuse, which the fork that follows would
// have taken: it is left to the collector, a frame lost only under the
// check.
func (sh *shape[E, R]) askCut(c *Ctx) bool {
	x := c.sched()
	if !x.Fast.CheckCopies || sh.lendable {
		_, ccall := x.AskSpawn(nil)
		return ccall
	}
	_, ccall := x.AskSpawn(&sh.task().kind)
	return ccall
}

// lent is a piece a loop forked, and its range.
type lent[R any] struct {
	forked Forked[R]
	lo, hi int64
}

// epoch is the origin of sinceEpoch.
var epoch = time.Now()

// sinceEpoch is the clock of a loop's chunks: time.Since of a time with a
// monotonic reading reads only the monotonic clock, half what time.Now
// costs, and a short loop reads it a few times.
func sinceEpoch() time.Duration { return time.Since(epoch) }
