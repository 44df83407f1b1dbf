package sched

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/xorshift"
)

// Pool is the set of workers of one node and the executors that run them.
// It runs one job at a time (Run); between runs no goroutine of it exists.
type Pool struct {
	workers    []*Worker
	localTries int // steal attempts at home before a worker counts as hungry
	remote     Remote
	// timeline is read by the engine's goroutines too (notes), and set
	// between runs.
	timeline atomic.Pointer[Timeline]
	// stream, when set, keeps the workers' last events for a live view
	// (stream.go); streamSw switches it.
	stream   atomic.Pointer[Stream]
	streamSw streamSwitch
	// measure and lastSpan: work and span are measured (workspan.go);
	// recorder, when set, records the task tree as they are.
	measure  bool
	lastSpan time.Duration
	recorder *TreeRecorder
	// checkCopies: tasks that may cross nodes run on copies, as on
	// another node (SetCheckCopies).
	checkCopies bool
	// expose is how many ready tasks beyond the inlining threshold the
	// workers keep stealable because other nodes want work (SetExpose).
	expose atomic.Int32
	// reserve is how many injected tasks the node keeps in hand before it
	// asks for more (SetReserve).
	reserve atomic.Int32
	// wanted: another node's request waits for this node's next push
	// (SetWanted).
	wanted atomic.Bool
	// share is how many workers may run tasks (workershare.go); shareWake is
	// closed when it grows. shareMu guards shareWake.
	share     atomic.Int32
	shareMu   sync.Mutex
	shareWake chan struct{}

	runMu sync.Mutex // one run at a time

	mu        sync.Mutex
	idle      []*Executor // parked executors holding a worker (idle.go)
	resumable []*Executor // released waiters that need a worker
	// spare are executors that passed their worker on and wait, without
	// one, to be reused by handOff: a new goroutine would grow its stack
	// again, frame by frame, to the depth of the tasks it runs.
	spare    []*Executor
	injected []*Header // tasks from other nodes, oldest first
	blocked  map[*Executor]struct{}
	err      error
	failed   chan struct{}
	// runCtx is the current run's context, which its tasks see
	// (Executor.Context): set before the run's executors start, cancelled
	// with the run's error when it fails and with errRunEnded when it
	// ends, so a task still running then sees Done.
	runCtx    context.Context
	cancelRun context.CancelCauseFunc
	// root is the current run's root task; nil while serving. Guarded
	// by mu: the cluster fails a run from its own goroutines.
	root *Header
	// caller is the current run's caller's context, which the executors
	// watch (callerwatch.go).
	caller callerWatch
	// alone: the current run is solo, or the pool has one worker, and no
	// cluster drives it: nobody could take a task (solo.go).
	alone bool
	// soloX is the executor of the pool's solo runs, kept between them.
	soloX *Executor

	nIdle     atomic.Int32
	nSpinning atomic.Int32
	// maxLooking bounds nSpinning when capLooking, that is when the pool
	// has more workers than the Go scheduler runs at once (idle.go,
	// parkAside); up to that many workers the idle protocol is as it was.
	maxLooking int32
	capLooking bool
	nResumable atomic.Int32
	nInjected  atomic.Int32
	ending     endingFlag
	started    atomic.Int32 // executor goroutines of this run
	// began and ended bound the current or last run (UnixNano; ended is 0
	// while it runs), for BusyTime.
	began, ended atomic.Int64
	// runs counts the runs (Runs).
	runs atomic.Uint64
	// progressTotal is the largest total the run's tasks reported
	// (progress.go).
	progressTotal progressTotal
	wg            sync.WaitGroup
}

// NewPool makes a pool of n workers with the given inlining policy.
func NewPool(n int, inl inline.Policy) *Pool {
	if n < 1 {
		n = 1
	}
	p := &Pool{localTries: localTries(n), blocked: make(map[*Executor]struct{})}
	p.maxLooking = int32(max(1, runtime.GOMAXPROCS(0)))
	p.capLooking = n > int(p.maxLooking)
	for i := 0; i < n; i++ {
		w := &Worker{ID: i, inline: inl, rng: xorshift.Seed(uint64(i))}
		w.setFloor(0)
		p.workers = append(p.workers, w)
	}
	p.share.Store(int32(n))
	// No run is on: a pool begins as it is between runs, so that what
	// comes before its first run (the cluster makes a job's pool before
	// its serving run starts, and a peer's word that the job failed can
	// come in between) fails no run, as after one.
	p.ending.Store(true)
	return p
}

// Workers reports the number of workers.
func (p *Pool) Workers() int { return len(p.workers) }

// SetExpose sets how many ready tasks beyond the inlining threshold the
// workers keep in their deques, because other nodes want work (a policy's
// Advice.Expose). Workers see it at their next allowCCall slow path,
// within about maxStaleness.
func (p *Pool) SetExpose(n int) { p.expose.Store(int32(max(0, n))) }

// SetCheckCopies makes every task that may cross nodes run on a copy of
// its argument, made by its codec, and give back a copy of its result,
// even here, as it would on another node: a program that depends on
// sharing memory with its tasks then gives its wrong answer on one node,
// in its own tests. Call between runs.
func (p *Pool) SetCheckCopies(on bool) { p.checkCopies = on }

// Run pushes root on worker 0, runs until root is done or the run fails
// (ctx is cancelled, a task panics or fails, Fail is called), then stops
// every executor of the run and returns the summed counters, and the
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

// session runs the workers until root is done (if there is a root), stop is
// closed, ctx ends or a task fails.
func (p *Pool) session(ctx context.Context, root *Header, stop <-chan struct{}) (Stats, error) {
	p.runMu.Lock()
	defer p.runMu.Unlock()
	return p.sessionLocked(ctx, root, stop)
}

// sessionLocked is session with runMu held.
func (p *Pool) sessionLocked(ctx context.Context, root *Header, stop <-chan struct{}) (Stats, error) {
	p.reset()
	p.ended.Store(0)
	p.began.Store(time.Now().UnixNano())
	p.lastSpan = 0
	p.alone = p.remote == nil && len(p.workers) == 1
	p.beginRun(ctx, root)

	var rootDone chan struct{}
	if root != nil {
		w := &waiter{ch: make(chan struct{})}
		root.addWaiter(w)
		rootDone = w.ch
		root.span = 0
		if p.measure && p.recorder != nil {
			p.recorder.root(root)
		}
		root.index, _ = p.workers[0].dq.Push(root)
		p.workers[0].dq.Release()
	}
	for _, w := range p.workers {
		p.startExecutor(w)
	}
	select {
	case <-rootDone:
	case <-stop:
	case <-p.failed:
	case <-ctx.Done():
		p.fail(cancelled(ctx))
	}
	// Before stop, so that a task that polls its context while it runs
	// returns now, and stop's wait is short.
	err := p.endRun()
	if err == nil && root != nil {
		err = p.caller.endedBy(sinceEpoch())
	}
	p.stop()
	p.wg.Wait()
	return p.endSession(root, err), err
}

// endSession sums the run's counters once its executors have ended, and
// clears what the run left: tasks still queued are dropped.
func (p *Pool) endSession(root *Header, err error) Stats {
	// The run's span ends here, so that the totals below and WorkerStats
	// later see the same busy times.
	p.ended.Store(time.Now().UnixNano())

	var total Stats
	span := p.span()
	for _, w := range p.workers {
		total.Add(w.Stats(span))
		w.publish() // what was counted after its last grant or idle stretch
		w.dq.Clear()
	}
	p.mu.Lock()
	p.injected = p.injected[:0]
	p.nInjected.Store(0)
	p.root = nil // the frame, and what its result holds, is the caller's now
	p.mu.Unlock()
	if err != nil {
		// Failed before the root finished (fail drops a later error):
		// the root's result, if any, was computed by tasks that were
		// cut short.
		return total
	}
	if root != nil && p.measure {
		p.lastSpan = root.SpanClock()
		total.SpanNanos = int64(p.lastSpan)
	}
	return total
}

// WorkerStats returns each worker's counters of the last run.
func (p *Pool) WorkerStats() []Stats {
	out := make([]Stats, len(p.workers))
	span := p.span()
	for i, w := range p.workers {
		out[i] = w.Stats(span)
	}
	return out
}

// span is how long the current or last run has lasted.
func (p *Pool) span() time.Duration {
	began, end := p.began.Load(), p.ended.Load()
	if began == 0 {
		return 0
	}
	if end == 0 || end < began {
		end = time.Now().UnixNano()
	}
	return time.Duration(end - began)
}

func (p *Pool) reset() {
	p.idle, p.resumable, p.spare = p.idle[:0], p.resumable[:0], p.spare[:0]
	clear(p.blocked)
	p.nIdle.Store(0)
	p.nSpinning.Store(0)
	p.nResumable.Store(0)
	p.started.Store(0)
	for _, w := range p.workers {
		w.resetStats()
	}
	p.progressTotal.v.Store(0)
	// After the counters are zero: a reader that sees the new run number
	// sees the new run's counts (Runs).
	p.runs.Add(1)
}

// startExecutor runs worker w on a spare executor, or on a new one.
func (p *Pool) startExecutor(w *Worker) {
	p.mu.Lock()
	if n := len(p.spare); n > 0 {
		x := p.spare[n-1]
		p.spare = p.spare[:n-1]
		p.mu.Unlock()
		x.wake <- w
		return
	}
	p.mu.Unlock()
	p.wg.Add(1)
	p.started.Add(1)
	x := newExecutor(p)
	x.begin(w)
	go x.live()
}

// newExecutor makes an executor of p, which has yet to measure its pace.
func newExecutor(p *Pool) *Executor {
	return &Executor{pool: p, wake: make(chan *Worker, 1), pace: -1, lastGrant: 1}
}

// begin readies x, new or left by an earlier run, to run the current run
// on worker w. One left by an earlier run keeps the pace it measured, a
// good first guess at the next run's (a solo executor's).
func (x *Executor) begin(w *Worker) {
	p := x.pool
	x.w = w
	x.measure, x.checkCopies, x.runCtx = p.measure, p.checkCopies, p.runCtx
	if len(x.views) == 0 {
		x.base.init(x, 0)
		x.views = append(x.views, &x.base)
	}
	x.base.Fast.Measure, x.base.Fast.CheckCopies = x.measure, x.checkCopies
	for _, b := range x.views[1:] {
		b.Fast.Measure, b.Fast.CheckCopies = x.measure, x.checkCopies
	}
	x.base.activate()
	x.v = &x.base
	x.traced = p.measure || p.timeline.Load() != nil
	x.tracking = x.traced
}

// ExecutorsStarted reports how many executor goroutines the last run
// started: the workers, plus one for each task that was blocked while no
// spare executor was free.
func (p *Pool) ExecutorsStarted() int { return int(p.started.Load()) }

// waitAsSpare parks x, which holds no worker, until startExecutor hands it
// one (true) or the run ends (false).
func (p *Pool) waitAsSpare(x *Executor) bool {
	p.mu.Lock()
	if p.ending.Load() {
		p.mu.Unlock()
		return false
	}
	p.spare = append(p.spare, x)
	p.mu.Unlock()
	x.w = <-x.wake
	return x.w != nil
}

// errRunEnded is the cause of a run's context once the run is over
// without failing: its root is done, or its node stopped serving it.
var errRunEnded = errors.New("tsys: the run has ended")

// beginRun sets up what fail reads, under mu: the cluster fails a run
// from its own goroutines, at any time.
func (p *Pool) beginRun(ctx context.Context, root *Header) {
	p.mu.Lock()
	defer p.mu.Unlock()
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
	p.mu.Lock()
	p.ending.Store(true)
	err := p.err
	p.mu.Unlock()
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
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failLocked(err)
}

// failRun is fail for the run numbered run (Runs) only: a callback that
// outlived its run must not fail the next.
func (p *Pool) failRun(run uint64, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.runs.Load() == run {
		p.failLocked(err)
	}
}

// failLocked is fail with mu held.
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
	if p.remote != nil {
		p.remote.Failed(err)
	}
}

// Failed reports whether the run has failed (for tests and diagnostics).
func (p *Pool) Failed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err != nil
}

// stop ends the run: executors with a worker leave their loops; blocked and
// queued waiters are woken without a worker and unwind their tasks.
func (p *Pool) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ending.Store(true)
	for x := range p.blocked {
		if x.blocked.CompareAndSwap(1, 0) {
			x.wake <- nil
		}
	}
	clear(p.blocked)
	for _, x := range p.resumable {
		x.wake <- nil
	}
	p.resumable = p.resumable[:0]
	for _, x := range p.idle {
		// Unparked as wakeOne does: it wakes counted as looking.
		p.checkCount("parked", p.nIdle.Add(-1))
		p.nSpinning.Add(1)
		x.wake <- nil
	}
	p.idle = p.idle[:0]
	for _, x := range p.spare {
		x.wake <- nil
	}
	p.spare = p.spare[:0]
}

func (p *Pool) registerBlocked(x *Executor) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ending.Load() {
		return false
	}
	p.blocked[x] = struct{}{}
	return true
}

func (p *Pool) unregisterBlocked(x *Executor) {
	p.mu.Lock()
	delete(p.blocked, x)
	p.mu.Unlock()
}

// resume is called when the task x waits for is done: x queues for a worker,
// and an idle worker, if any, is woken to pass its worker on.
func (p *Pool) resume(x *Executor) {
	if !x.blocked.CompareAndSwap(1, 0) {
		return // it saw the result itself, or the run already woke it
	}
	p.mu.Lock()
	delete(p.blocked, x)
	if p.ending.Load() {
		p.mu.Unlock()
		x.wake <- nil
		return
	}
	p.resumable = append(p.resumable, x)
	p.nResumable.Add(1)
	p.mu.Unlock()
	if p.nIdle.Load() > 0 {
		p.wakeOne()
	}
}

// handOff gives the worker of a blocking executor to a waiter that is ready
// to resume, or else to a new executor.
func (p *Pool) handOff(w *Worker) {
	if y, _, ok := popOldest(&p.mu, &p.resumable, &p.nResumable); ok {
		// y may be the blocking executor itself, if its result came
		// already: it then takes its own worker back.
		y.wake <- w
		return
	}
	p.startExecutor(w)
}

// passToResumable gives x's worker to the longest-waiting resumable
// executor. x then has nothing left to do and its goroutine ends.
func (p *Pool) passToResumable(x *Executor) bool {
	y, _, ok := popOldest(&p.mu, &p.resumable, &p.nResumable)
	if !ok {
		return false
	}
	x.flushCredit()
	x.publishWork(false)
	w := x.w
	x.w = nil
	y.wake <- w
	return true
}

// popOldest removes and returns the oldest element of *q, one of the
// pool's queues, and decrements n, returning what it left; ok is false
// when *q is empty. mu guards *q and must not be held by the caller; the
// element is taken and n decremented under it, so two callers never take
// the same element. n is *q's length for those that read it without mu
// (hasWork, the executor loop), who may see it late: one that saw it
// non-zero may find *q empty here, where it is looked at again under mu.
// Whoever adds to *q does it under mu and adds to n with it.
func popOldest[T any](mu *sync.Mutex, q *[]T, n *atomic.Int32) (v T, left int32, ok bool) {
	mu.Lock()
	if len(*q) == 0 {
		mu.Unlock()
		return v, 0, false
	}
	v = (*q)[0]
	*q = slices.Delete(*q, 0, 1)
	left = n.Add(-1)
	mu.Unlock()
	return v, left, true
}
