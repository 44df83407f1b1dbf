package sched

import (
	"context"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/goroutine"
)

// Solo runs.
//
// A runtime that serves many callers at once (a server whose requests
// each run a small job) has more runs than CPUs, and a run that gets a
// pool of workers then pays for what it cannot use: a goroutine per
// worker, started and ended with the run, and idle workers that look for
// work, steal it and make every fork a task for them, on CPUs the other
// runs need. So such a run runs solo (RunSolo): its root runs on the
// caller's goroutine, on the pool's worker 0 alone, with no goroutine of
// the pool's, and since no other worker or node can take a task from it,
// every spawn the inlining policy is asked about under load-based
// inlining runs as a plain call (alone). Nothing then waits for a task
// run elsewhere; a cyclic wait still hands the worker on, as in any run,
// and the run's end collects what that started. The caller's context is
// watched by the executor (callerwatch.go) and by a callback on its Done,
// since no goroutine of the run waits on it. Parallelism then comes from
// the runs themselves: package tsys's Runtime runs a run solo once the
// runs in progress hold the CPUs (bench/README.md, "Many callers").

// TryRunSolo is RunSolo if the pool is free and no cluster drives it;
// otherwise it returns at once with ran false, having run nothing.
func (p *Pool) TryRunSolo(ctx context.Context, root *Header) (ran bool, st Stats, err error) {
	if p.port.remote != nil || !p.runMu.TryLock() {
		return false, Stats{}, nil
	}
	defer p.runMu.Unlock()
	st, err = p.soloLocked(ctx, root)
	return true, st, err
}

// RunSolo is Run on the calling goroutine, with one worker (see the top
// of this file). The pool must not be driven by a cluster.
func (p *Pool) RunSolo(ctx context.Context, root *Header) (Stats, error) {
	if p.port.remote != nil {
		throwf("RunSolo on a pool that a cluster drives")
	}
	p.runMu.Lock()
	defer p.runMu.Unlock()
	return p.soloLocked(ctx, root)
}

// soloLocked is RunSolo with runMu held.
func (p *Pool) soloLocked(ctx context.Context, root *Header) (Stats, error) {
	p.beginSession(ctx, root, true)
	defer func() { p.alone = false }()
	if ctx.Done() != nil {
		run := p.view.runs.Load()
		stop := context.AfterFunc(ctx, func() { p.failRun(run, cancelled(ctx)) })
		defer stop()
	}
	// An executor of its own, as a pool's run has, not the last solo
	// run's: a Ctx a task kept stays its own run's, ended, and its Context
	// that run's (Ctx.Context may be read at any time, anywhere). It
	// starts from the pace the last one measured, a good first guess.
	x := newExecutor(p)
	if last := p.soloX; last != nil {
		x.pace, x.lastGrant = last.pace, last.lastGrant
	}
	p.soloX = x
	x.begin(p.workers[0])
	x.g = goroutine.Current()
	if !p.ending.Load() {
		x.track.retrack(p)
		x.runTop(root)
		x.flushCredit()
	}
	x.endCtxs()
	// A cyclic wait may have handed the worker to an executor of the
	// pool's (block): finishSession ends them as any run's end does.
	return p.finishSession(root)
}

// alone reports whether nobody but this executor could take a task it
// pushed (a solo run, or a pool of one worker, that no cluster drives):
// under load-based inlining its spawns then run as plain calls, since a
// task would only wait in the deque for its own Join.
func (x *Executor) alone() bool { return x.pool.alone && x.w.inline.Mode() == inline.Load }
