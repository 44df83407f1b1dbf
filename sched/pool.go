package sched

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/inline"
)

// spinFor is how long an idle worker keeps trying to steal before it parks.
// Parking and waking cost a few microseconds each; spinning a little longer
// than that keeps fine-grained programs from paying it at every gap, and
// parking at all keeps an idle runtime off the CPU.
const spinFor = 50 * time.Microsecond

// Pool is the set of workers of one node and the executors that run them.
// It runs one job at a time (Run); between runs no goroutine of it exists.
type Pool struct {
	workers  []*Worker
	policy   Policy
	remote   Remote
	timeline *Timeline

	runMu sync.Mutex // one run at a time

	mu        sync.Mutex
	idle      []*Executor // parked executors holding a worker
	resumable []*Executor // released waiters that need a worker
	// spare are executors that passed their worker on and wait, without
	// one, to be reused by handOff: a new goroutine would grow its stack
	// again, frame by frame, to the depth of the tasks it runs.
	spare    []*Executor
	injected []*Header // tasks from other nodes, oldest first
	blocked  map[*Executor]struct{}
	err      error
	failed   chan struct{}

	nIdle      atomic.Int32
	nSpinning  atomic.Int32
	nResumable atomic.Int32
	nInjected  atomic.Int32
	ending     atomic.Bool
	started    atomic.Int32 // executor goroutines of this run
	wg         sync.WaitGroup
}

// NewPool makes a pool of n workers with the given inlining policy and
// scheduler policy (nil: a LocalStealer).
func NewPool(n int, inl inline.Policy, policy Policy) *Pool {
	if n < 1 {
		n = 1
	}
	if policy == nil {
		policy = NewLocalStealer(n)
	}
	p := &Pool{policy: policy, blocked: make(map[*Executor]struct{})}
	for i := 0; i < n; i++ {
		p.workers = append(p.workers, &Worker{ID: i, inline: inl})
	}
	return p
}

// Workers reports the number of workers.
func (p *Pool) Workers() int { return len(p.workers) }

// Policy returns the scheduler policy.
func (p *Pool) Policy() Policy { return p.policy }

// Run pushes root on worker 0, runs until root is done, ctx is cancelled or
// a task panics, then stops every executor of the run and returns the
// summed counters. Tasks still queued when the run ends are dropped.
func (p *Pool) Run(ctx context.Context, root *Header) (Stats, error) {
	return p.session(ctx, root, nil)
}

// session runs the workers until root is done (if there is a root), stop is
// closed, ctx ends or a task fails.
func (p *Pool) session(ctx context.Context, root *Header, stop <-chan struct{}) (Stats, error) {
	p.runMu.Lock()
	defer p.runMu.Unlock()
	p.reset()

	var rootDone chan struct{}
	if root != nil {
		w := &waiter{ch: make(chan struct{})}
		root.addWaiter(w)
		rootDone = w.ch
		root.index, _ = p.workers[0].dq.Push(root)
	}
	for _, w := range p.workers {
		p.startExecutor(w)
	}
	select {
	case <-rootDone:
	case <-stop:
	case <-p.failed:
	case <-ctx.Done():
		p.fail(fmt.Errorf("run cancelled: %w", context.Cause(ctx)))
	}
	p.stop()
	p.wg.Wait()

	var total Stats
	for _, w := range p.workers {
		total.Add(w.Stats())
		w.dq.Clear()
	}
	p.injected = p.injected[:0]
	p.nInjected.Store(0)
	if root != nil && root.Done() {
		// The root finished even if something failed after it.
		return total, nil
	}
	return total, p.err
}

// WorkerStats returns each worker's counters of the last run.
func (p *Pool) WorkerStats() []Stats {
	out := make([]Stats, len(p.workers))
	for i, w := range p.workers {
		out[i] = w.Stats()
	}
	return out
}

func (p *Pool) reset() {
	p.ending.Store(false)
	p.err = nil
	p.failed = make(chan struct{})
	p.idle, p.resumable, p.spare = p.idle[:0], p.resumable[:0], p.spare[:0]
	clear(p.blocked)
	p.nIdle.Store(0)
	p.nSpinning.Store(0)
	p.nResumable.Store(0)
	p.started.Store(0)
	for _, w := range p.workers {
		w.resetStats()
	}
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
	x := &Executor{w: w, pool: p, wake: make(chan *Worker, 1), pace: -1}
	go x.live()
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

// fail records the run's first error and ends the run.
func (p *Pool) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
		close(p.failed)
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
	p.mu.Lock()
	if n := len(p.resumable); n > 0 {
		y := p.resumable[0]
		p.resumable = slices.Delete(p.resumable, 0, 1)
		p.nResumable.Add(-1)
		p.mu.Unlock()
		// y may be the blocking executor itself, if its result came
		// already: it then takes its own worker back.
		y.wake <- w
		return
	}
	p.mu.Unlock()
	p.startExecutor(w)
}

// passToResumable gives x's worker to the longest-waiting resumable
// executor. x then has nothing left to do and its goroutine ends.
func (p *Pool) passToResumable(x *Executor) bool {
	p.mu.Lock()
	if len(p.resumable) == 0 {
		p.mu.Unlock()
		return false
	}
	y := p.resumable[0]
	p.resumable = slices.Delete(p.resumable, 0, 1)
	p.nResumable.Add(-1)
	p.mu.Unlock()
	x.flushCredit()
	w := x.w
	x.w = nil
	y.wake <- w
	return true
}

// wakeOne wakes one parked idle executor, counting it as spinning on its
// behalf so that concurrent spawns do not wake a crowd.
func (p *Pool) wakeOne() {
	p.mu.Lock()
	n := len(p.idle)
	if n == 0 {
		p.mu.Unlock()
		return
	}
	x := p.idle[n-1]
	p.idle = p.idle[:n-1]
	p.nIdle.Add(-1)
	p.nSpinning.Add(1)
	p.mu.Unlock()
	x.wake <- nil
}

// hasWork reports whether a parking executor should look again.
func (p *Pool) hasWork() bool {
	if p.ending.Load() || p.nResumable.Load() > 0 || p.nInjected.Load() > 0 {
		return true
	}
	for _, w := range p.workers {
		if w.dq.Len() > 0 {
			return true
		}
	}
	return false
}

// findWork asks the policy where to look while the executor's deque is
// empty. It returns a task, or nil when the loop should look again (the run
// is ending, a waiter wants a worker, or the executor was woken).
func (x *Executor) findWork() *Header {
	p, w := x.pool, x.w
	p.nSpinning.Add(1)
	deadline := time.Time{}
	for attempt := 0; ; attempt++ {
		if p.ending.Load() || p.nResumable.Load() > 0 {
			p.nSpinning.Add(-1)
			return nil
		}
		h := w.dq.Pop()
		if h == nil && p.nInjected.Load() > 0 {
			h = p.takeInjected()
		}
		if h != nil {
			p.nSpinning.Add(-1)
			return h
		}
		a := p.policy.Idle(w.ID, attempt)
		switch a.Kind {
		case StealLocal:
			w.stealAttempts.Add(1)
			h, _ := p.workers[a.Worker].dq.Steal()
			if h != nil {
				w.localSteals.Add(1)
				if p.nSpinning.Add(-1) == 0 && p.nIdle.Load() > 0 {
					// The last spinner found work: there may be more,
					// so let another worker look.
					p.wakeOne()
				}
				return h
			}
		case Fish:
			if p.remote != nil {
				p.remote.Fish(a.Node, a.Count)
			}
		case Park:
			now := time.Now()
			if deadline.IsZero() {
				deadline = now.Add(spinFor)
			}
			if now.Before(deadline) {
				runtime.Gosched()
				attempt = -1
				continue
			}
			x.park()
			deadline = time.Time{}
			attempt = -1
		}
	}
}

// park sleeps until woken. The executor is counted as spinning when it
// enters and when it returns (the waker counts it on its behalf).
func (x *Executor) park() {
	p := x.pool
	p.mu.Lock()
	if p.ending.Load() || p.nResumable.Load() > 0 {
		p.mu.Unlock()
		return
	}
	p.idle = append(p.idle, x)
	p.nIdle.Add(1)
	p.nSpinning.Add(-1)
	p.mu.Unlock()
	// Advertised as idle; look once more so a push that missed the
	// advertisement is not left waiting.
	if p.hasWork() {
		p.mu.Lock()
		if i := slices.Index(p.idle, x); i >= 0 {
			p.idle = slices.Delete(p.idle, i, i+1)
			p.nIdle.Add(-1)
			p.nSpinning.Add(1)
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
	<-x.wake
}
