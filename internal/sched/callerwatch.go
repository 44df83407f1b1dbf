package sched

import (
	"context"
	"time"
)

// Watching the caller's context.
//
// A run ends with its caller's context: a cancellation, or a deadline
// that passes. The run's goroutine waits on the context's Done, but on a
// machine whose CPUs the workers hold, it and the timer goroutine that
// closes Done for a deadline may wait for a CPU for milliseconds, while
// the tasks run on, even to the root's result. So the executors watch the
// context themselves, where they look at the clock anyway or every
// callerEvery spawns that become tasks: its Done, without blocking, and
// the deadline against the clock; whichever sees it ended fails the run,
// and no task starts after. And a run whose context ended before its
// result reached the caller returns the context's error, not the result
// (endedBy): a caller that gave up gets what it gave up for.

// callerEvery is how many spawns that become tasks an executor makes
// between two looks at the caller's context, on top of every grant of
// credit, which reads the clock anyway.
const callerEvery = 8

// callerWatch is what the executors read of the run's caller's context,
// set before the run's executors start and fixed for the run.
type callerWatch struct {
	ctx  context.Context
	done <-chan struct{} // nil if the context can never be done
	// until is the deadline on the monotonic clock (sinceEpoch); 0 if
	// the context has none.
	until time.Duration
}

// epoch is the origin of sinceEpoch.
var epoch = time.Now()

// sinceEpoch reads the monotonic clock only, not the wall clock that
// time.Now reads too: the executors read it on the spawn's slow path.
func sinceEpoch() time.Duration { return time.Since(epoch) }

func (w *callerWatch) watch(ctx context.Context) {
	w.ctx, w.done, w.until = ctx, ctx.Done(), 0
	if d, ok := ctx.Deadline(); ok {
		w.until = max(1, sinceEpoch()+time.Until(d))
	}
}

// doneNow reports whether the caller's context is done, without waiting.
func (w *callerWatch) doneNow() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// pastDeadline reports whether the caller's deadline is at or before now
// (a sinceEpoch reading).
func (w *callerWatch) pastDeadline(now time.Duration) bool { return w.until != 0 && now >= w.until }

// endedBy is the error of a run whose caller's context ended by now (a
// sinceEpoch reading), or nil: the context's own, or DeadlineExceeded
// when its deadline passed and the timer that would say so has not run
// yet.
func (w *callerWatch) endedBy(now time.Duration) error {
	switch {
	case w.done == nil:
		return nil
	case w.ctx.Err() != nil:
		return cancelled(w.ctx)
	case w.doneNow(), w.pastDeadline(now):
		return cancelledBy(w.ctx, context.DeadlineExceeded)
	}
	return nil
}

// watchCaller fails the run, and unwinds the calling task, if the
// caller's context ended by now (a sinceEpoch reading).
func (x *Executor) watchCaller(now time.Duration) {
	p := x.pool
	if err := p.caller.endedBy(now); err != nil {
		p.fail(err)
		panic(abortRun)
	}
}

// watchCallerOnTCall is watchCaller on every callerEvery-th spawn that
// becomes a task: an increment and a test, inlined, on the others.
func (x *Executor) watchCallerOnTCall() {
	if x.tcalls++; x.tcalls%callerEvery == 0 {
		x.lookAtCaller()
	}
}

// lookAtCaller is watchCaller when the caller's context can end.
func (x *Executor) lookAtCaller() {
	if x.pool.caller.done != nil {
		x.watchCaller(sinceEpoch())
	}
}
