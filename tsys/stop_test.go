package tsys_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/tsys"
)

// A job that fails stops its inlined work too: after the failure no leaf
// starts, whether it would have run as a task or as a plain call that a
// fork, a Join or a loop's next chunk became. The leaves never poll, so
// the runtime's own checks are all that stops them.

// stopLeafTime is a leaf's length in the tests: long beside a fork,
// short enough that a run of every leaf left stays a fraction of a
// second.
const stopLeafTime = time.Millisecond

// stopJob is a job of Leaves leaves in which leaf FailAt (counted in the
// order the leaves begin, from 1) fails: it returns an error, panics, or
// cancels the job's context, as Mode says.
type stopJob struct {
	Lo, Hi, FailAt int
	Mode           stopMode
}

type stopMode uint8

const (
	stopByError stopMode = iota
	stopByCancel
	// stopByRemote fails the job as a failure on another node does: the
	// cluster calls the pool's Fail (cluster/lend.go, lender.go).
	stopByRemote
)

var (
	// stopBegun counts the leaves begun; stopBegunAfter those that began
	// once the job's context was done, after its failure.
	stopBegun, stopBegunAfter atomic.Int64
	// stopCancel cancels the running job's context (stopByCancel).
	stopCancel context.CancelFunc
	// stopPool is the running job's pool (stopByRemote).
	stopPool    *sched.Pool
	errStopLeaf = errors.New("the failing leaf")
)

// stopLeaf runs one leaf, without polling: it sleeps as a long
// computation would run, deaf to the job's context. It counts itself
// begun after the failure if first: a loop's chunk may hold several
// leaves, and the runtime can stop only the next chunk, not the body's
// own loop, so a chunk counts its first leaf only.
func stopLeaf(c *tsys.Ctx, j stopJob, first bool) error {
	if first && c.Context().Err() != nil {
		stopBegunAfter.Add(1)
	}
	if int(stopBegun.Add(1)) == j.FailAt {
		if j.Mode != stopByError {
			// As long as the others, so that a loop's chunks stay one
			// leaf long: the runtime cannot stop the body's own loop.
			if j.Mode == stopByCancel {
				stopCancel()
			} else {
				stopPool.Port().Fail(errStopLeaf)
			}
			time.Sleep(stopLeafTime)
			return nil
		}
		return errStopLeaf
	}
	time.Sleep(stopLeafTime)
	return nil
}

var (
	stopFork  *tsys.Task[stopJob, int]
	stopSpawn *tsys.Task[stopJob, int]
	stopRange *tsys.Loop[stopJob, int]
	stopRoot  *tsys.Task[stopForm, int]
)

// stopForm is the shape of work under test.
type stopForm struct {
	Form string
	Job  stopJob
}

func init() {
	// A binary recursion written with Fork, the left half forked.
	stopFork = tsys.Register("test.stop.fork", func(c *tsys.Ctx, j stopJob) int {
		if j.Hi-j.Lo == 1 {
			if err := stopLeaf(c, j, true); err != nil {
				c.Fail(err)
			}
			return 1
		}
		mid := j.Lo + (j.Hi-j.Lo)/2
		left, right := j, j
		left.Hi, right.Lo = mid, mid
		a := stopFork.Fork(c, left)
		b := stopFork.Call(c, right)
		return a.Join(c) + b
	})
	// The same with Spawn, the right half a plain recursive call: only
	// the spawn's own check stops the recursion of plain calls.
	stopSpawn = tsys.Register("test.stop.spawn", spawnTree)
	stopRange = tsys.RegisterFold("test.stop.range", func() int { return 0 }, func(c *tsys.Ctx, j stopJob, lo, hi, n int) int {
		for i := range hi - lo {
			if err := stopLeaf(c, j, i == 0); err != nil {
				panic(err)
			}
		}
		return n + hi - lo
	}, func(a, b int) int { return a + b })
	stopRoot = tsys.Register("test.stop.root", func(c *tsys.Ctx, f stopForm) int {
		j := f.Job
		switch f.Form {
		case "fork":
			return stopFork.Call(c, j)
		case "spawn":
			return stopSpawn.Call(c, j)
		case "join":
			return joinTree(c, j)
		case "for":
			return forLeaves(c, j)
		case "for-grain":
			return forLeaves(c, j, tsys.Grain(1))
		case "range":
			return stopRange.Call(c, j, j.Lo, j.Hi)
		}
		panic("unknown form " + f.Form)
	})
}

// spawnTree is stopSpawn's body.
func spawnTree(c *tsys.Ctx, j stopJob) int {
	if j.Hi-j.Lo == 1 {
		if err := stopLeaf(c, j, true); err != nil {
			c.Fail(err)
		}
		return 1
	}
	mid := j.Lo + (j.Hi-j.Lo)/2
	left, right := j, j
	left.Hi, right.Lo = mid, mid
	a := stopSpawn.Spawn(c, left)
	b := spawnTree(c, right)
	return a.Get(c) + b
}

// joinTree is the recursion of stopFork with closures.
func joinTree(c *tsys.Ctx, j stopJob) int {
	if j.Hi-j.Lo == 1 {
		if err := stopLeaf(c, j, true); err != nil {
			panic(err)
		}
		return 1
	}
	mid := j.Lo + (j.Hi-j.Lo)/2
	left, right := j, j
	left.Hi, right.Lo = mid, mid
	var a, b int
	tsys.Both(c, func(c *tsys.Ctx) { a = joinTree(c, left) }, func(c *tsys.Ctx) { b = joinTree(c, right) })
	return a + b
}

// forLeaves runs the leaves as the iterations of a closure loop.
func forLeaves(c *tsys.Ctx, j stopJob, opts ...tsys.LoopOption) int {
	var n atomic.Int64
	tsys.For(c, j.Lo, j.Hi, func(c *tsys.Ctx, lo, hi int) {
		for i := range hi - lo {
			if err := stopLeaf(c, j, i == 0); err != nil {
				panic(err)
			}
		}
		n.Add(int64(hi - lo))
	}, opts...)
	return int(n.Load())
}

var stopForms = []string{"fork", "spawn", "join", "for", "for-grain", "range"}

// TestFailureStopsInlinedWork: on 1 and 2 workers, in every shape of
// work, a failure at the fourth leaf of 256 (an error or a panic, the
// caller's cancellation, or a failure on another node, which reaches the
// pool through Port.Fail) lets at most one leaf (or a loop's chunk) per
// worker begin after it, one that was on its way in when the failure
// came.
func TestFailureStopsInlinedWork(t *testing.T) {
	checkNoLeak(t)
	for _, mode := range []stopMode{stopByError, stopByCancel, stopByRemote} {
		for _, w := range []int{1, 2} {
			rt := tsys.New(tsys.Workers(w))
			stopPool = tsys.Pool(rt)
			for _, form := range stopForms {
				name := fmt.Sprintf("%s/workers=%d/mode=%d", form, w, mode)
				stopBegun.Store(0)
				stopBegunAfter.Store(0)
				ctx, cancel := context.WithCancel(context.Background())
				stopCancel = cancel
				_, _, err := tsys.Run(ctx, rt, stopRoot, stopForm{form, stopJob{Lo: 0, Hi: 256, FailAt: 4, Mode: mode}})
				cancel()
				switch {
				case mode == stopByCancel && !errors.Is(context.Cause(ctx), context.Canceled):
					t.Errorf("%s: the context was not cancelled", name)
				case mode == stopByCancel && err == nil:
					t.Errorf("%s: Run returned no error after its context was cancelled", name)
				case mode != stopByCancel && !errors.Is(err, errStopLeaf):
					t.Errorf("%s: err = %v, want the leaf's", name, err)
				}
				if after := stopBegunAfter.Load(); after > int64(w) {
					t.Errorf("%s: %d leaves began after the failure (of %d begun), want at most %d", name, after, stopBegun.Load(), w)
				}
			}
		}
	}
}
