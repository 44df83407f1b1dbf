package sched

import (
	"context"
	"errors"
	"time"
)

// A run: the owner starts it (Run, TryRun, Serve; RunSolo in solo.go),
// the executors run it, and its first failure or its end stops it.

// Run pushes root on worker 0, runs until root is done or the run fails
// (ctx is cancelled, a task panics or fails, Port.Fail is called), then
// stops every executor of the run and returns the summed counters, and the
// failure if it came before the root was done. Tasks still queued when
// the run ends are dropped.
func (p *Pool) Run(ctx context.Context, root *Header) (Stats, error) {
	return p.session(ctx, root, nil)
}

// TryRun is Run if the pool is free; if a run or a serving session is on,
// it returns at once with ran false, having run nothing. A caller that must
// not wait for another run (tsys.Run called from inside a task of this
// pool, whose run can only end after the caller returns) runs elsewhere
// instead.
func (p *Pool) TryRun(ctx context.Context, root *Header) (ran bool, st Stats, err error) {
	if !p.runMu.TryLock() {
		return false, Stats{}, nil
	}
	defer p.runMu.Unlock()
	st, err = p.sessionLocked(ctx, root, nil)
	return true, st, err
}

// Serve runs the pool's workers without a root task, for tasks that arrive
// from other nodes (Port.Inject), until stop is closed, ctx ends or the
// run fails (a task it ran panicked or failed, or Port.Fail was called).
// It returns the counters, and the failure, if one came before stop.
func (p *Pool) Serve(ctx context.Context, stop <-chan struct{}) (Stats, error) {
	return p.session(ctx, nil, stop)
}

// session runs the workers until root is done (if there is a root), stop is
// closed, ctx ends or a task fails.
func (p *Pool) session(ctx context.Context, root *Header, stop <-chan struct{}) (Stats, error) {
	p.runMu.Lock()
	defer p.runMu.Unlock()
	return p.sessionLocked(ctx, root, stop)
}

// sessionLocked is session with runMu held.
func (p *Pool) sessionLocked(ctx context.Context, root *Header, stop <-chan struct{}) (Stats, error) {
	p.beginSession(ctx, root, p.port.remote == nil && len(p.workers) == 1)

	var rootDone chan struct{}
	if root != nil {
		w := &waiter{ch: make(chan struct{})}
		root.addWaiter(w)
		rootDone = w.ch
		root.index, _ = p.workers[0].dq.Push(root)
		p.workers[0].dq.Release()
	}
	for _, w := range p.workers {
		p.crew.start(w)
	}
	select {
	case <-rootDone:
	case <-stop:
	case <-p.failed:
	case <-ctx.Done():
		p.fail(cancelled(ctx))
	}
	return p.finishSession(root)
}

// beginSession readies the pool for a session of root (nil for Serve),
// solo or not: the counters, the bounds of the run's span, whether it
// runs alone (solo.go), what fail reads, and the root's place on the
// critical path. Every session begins here.
func (p *Pool) beginSession(ctx context.Context, root *Header, alone bool) {
	p.reset()
	p.view.ended.Store(0)
	p.view.began.Store(time.Now().UnixNano())
	p.view.lastSpan = 0
	p.alone = alone
	p.beginRun(ctx, root)
	if root != nil {
		root.span = 0
		if p.measure && p.recorder != nil {
			p.recorder.root(root)
		}
	}
}

// finishSession ends the session of root (nil for Serve), solo or not,
// once its goroutine is done with it: the run's error (a caller whose
// context ended before the root's result reached it gets the context's
// error), the crew stopped, executors a cyclic wait started included,
// and the run's counters. Every session ends here.
func (p *Pool) finishSession(root *Header) (Stats, error) {
	// Before stop, so that a task that polls its context while it runs
	// returns at once, and stop's wait is short.
	err := p.endRun()
	if err == nil && root != nil {
		err = p.caller.endedBy(sinceEpoch())
	}
	p.crew.stop()
	p.crew.wg.Wait()
	return p.endSession(root, err), err
}

// endSession sums the run's counters once its executors have ended, and
// clears what the run left: tasks still queued are dropped.
func (p *Pool) endSession(root *Header, err error) Stats {
	// The run's span ends here, so that the totals below and WorkerStats
	// later see the same busy times.
	p.view.ended.Store(time.Now().UnixNano())

	var total Stats
	span := p.view.span()
	for _, w := range p.workers {
		total.Add(w.Stats(span))
		w.publish() // what was counted after its last grant or idle stretch
		w.dq.Clear()
	}
	p.port.mu.Lock()
	p.port.injected = p.port.injected[:0]
	p.port.nInjected.Store(0)
	p.port.mu.Unlock()
	p.crew.mu.Lock()
	p.root = nil // the frame, and what its result holds, is the caller's now
	p.crew.mu.Unlock()
	if err != nil {
		// Failed before the root finished (fail drops a later error):
		// the root's result, if any, was computed by tasks that were
		// cut short.
		return total
	}
	if root != nil && p.measure {
		p.view.lastSpan = root.SpanClock()
		total.SpanNanos = int64(p.view.lastSpan)
	}
	return total
}

// reset readies the crew and the counters for a run.
func (p *Pool) reset() {
	p.crew.reset()
	for _, w := range p.workers {
		w.resetStats()
	}
	p.view.progressTotal.v.Store(0)
	// After the counters are zero: a reader that sees the new run number
	// sees the new run's counts (View.Runs).
	p.view.runs.Add(1)
}

// errRunEnded is the cause of a run's context once the run is over
// without failing: its root is done, or its node stopped serving it.
var errRunEnded = errors.New("tsys: the run has ended")

// beginRun sets up what fail reads, under crew.mu: the cluster fails a
// run from its own goroutines, at any time.
func (p *Pool) beginRun(ctx context.Context, root *Header) {
	p.crew.mu.Lock()
	defer p.crew.mu.Unlock()
	p.err = nil
	p.failed = make(chan struct{})
	p.ending.Store(false)
	p.runCtx, p.cancelRun = newRunContext(ctx)
	p.root = root
	p.caller.watch(ctx)
}

// endRun marks the run over, after which fail drops what it is given,
// cancels the run's context (if the run failed, fail did already, with
// its error) and returns the run's error.
func (p *Pool) endRun() error {
	p.crew.mu.Lock()
	p.ending.Store(true)
	err := p.err
	p.crew.mu.Unlock()
	p.cancelRun(errRunEnded)
	return err
}

// fail records the run's first error and ends the run; its tasks see the
// error as their context's cause. Later errors are dropped: the first
// one is the run's, as errgroup's Wait returns the first. So is an error
// once the run is over (ending without an error): a task that returns
// its context's cause after its node stopped serving, or the root's
// answer was in, has not failed the job; nor has one before any run.
func (p *Pool) fail(err error) {
	p.crew.mu.Lock()
	defer p.crew.mu.Unlock()
	p.failLocked(err)
}

// failRun is fail for the run numbered run (View.Runs) only: a callback
// that outlived its run must not fail the next.
func (p *Pool) failRun(run uint64, err error) {
	p.crew.mu.Lock()
	defer p.crew.mu.Unlock()
	if p.view.runs.Load() == run {
		p.failLocked(err)
	}
}

// failLocked is fail with crew.mu held.
func (p *Pool) failLocked(err error) {
	if p.err != nil || p.ending.Load() || p.root != nil && p.root.Done() {
		return
	}
	p.err = err
	// ending at once, not when the run's goroutine gets to stop it: from
	// here no task starts (the loop, AskSpawn, Await and JoinForked check
	// it), however long that goroutine waits for a CPU. stop still wakes
	// whoever parked before this.
	p.ending.Store(true)
	close(p.failed)
	p.cancelRun(err)
	if p.port.remote != nil {
		p.port.remote.Failed(err)
	}
}
