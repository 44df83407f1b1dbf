package sched

import (
	"slices"
	"sync"
	"sync/atomic"
)

// crew is the pool's side that its executors call: the executors of the
// current run, and the queues through which a worker passes from one to
// another (Waiting, in the package doc) or waits for work (idle.go).
//
// Concurrency: the run's executors call it, and the run's goroutine to
// start and stop them (start, stop); resume and wakeOne may also be
// called from the cluster engine's goroutines (Port.Complete, which
// completes a lent task, and Port.Inject). mu guards the queues below,
// and the pool's run state (Pool.err, failed, root...); the pool's ending
// flag is stored under it, and every executor that queues checks the
// flag under it first, so that stop, which wakes every queue under mu,
// finds every executor that queued before it, and none queues after. The
// counters that mirror the queues (nIdle, nResumable) are written under
// mu and read without it.
type crew struct {
	pool *Pool

	mu        sync.Mutex
	idle      []*Executor // parked executors holding a worker (idle.go)
	resumable []*Executor // released waiters that need a worker
	// spare are executors that passed their worker on and wait, without
	// one, to be reused by handOff: a new goroutine would grow its stack
	// again, frame by frame, to the depth of the tasks it runs.
	spare   []*Executor
	blocked map[*Executor]struct{}

	nIdle     atomic.Int32
	nSpinning atomic.Int32
	// maxLooking bounds nSpinning when capLooking, that is when the pool
	// has more workers than the Go scheduler runs at once (idle.go,
	// parkAside); up to that many workers the idle protocol is as it was.
	maxLooking int32
	capLooking bool
	nResumable atomic.Int32

	started atomic.Int32 // executor goroutines of this run
	wg      sync.WaitGroup
}

func (xs *crew) init(p *Pool) {
	xs.pool = p
	xs.blocked = make(map[*Executor]struct{})
}

// reset empties the queues for a new run; no executor of the pool runs.
func (xs *crew) reset() {
	xs.idle, xs.resumable, xs.spare = xs.idle[:0], xs.resumable[:0], xs.spare[:0]
	clear(xs.blocked)
	xs.nIdle.Store(0)
	xs.nSpinning.Store(0)
	xs.nResumable.Store(0)
	xs.started.Store(0)
}

// start runs worker w on a spare executor, or on a new one.
func (xs *crew) start(w *Worker) {
	xs.mu.Lock()
	if n := len(xs.spare); n > 0 {
		x := xs.spare[n-1]
		xs.spare = xs.spare[:n-1]
		xs.mu.Unlock()
		x.wake <- w
		return
	}
	xs.mu.Unlock()
	xs.wg.Add(1)
	xs.started.Add(1)
	x := newExecutor(xs.pool)
	x.begin(w)
	go x.live()
}

// waitAsSpare parks x, which holds no worker, until start hands it one
// (true) or the run ends (false).
func (xs *crew) waitAsSpare(x *Executor) bool {
	xs.mu.Lock()
	if xs.pool.ending.Load() {
		xs.mu.Unlock()
		return false
	}
	xs.spare = append(xs.spare, x)
	xs.mu.Unlock()
	x.w = <-x.wake
	return x.w != nil
}

// stop ends the run: executors with a worker leave their loops; blocked and
// queued waiters are woken without a worker and unwind their tasks.
func (xs *crew) stop() {
	xs.mu.Lock()
	defer xs.mu.Unlock()
	xs.pool.ending.Store(true)
	for x := range xs.blocked {
		if x.blocked.CompareAndSwap(1, 0) {
			x.wake <- nil
		}
	}
	clear(xs.blocked)
	for _, x := range xs.resumable {
		x.wake <- nil
	}
	xs.resumable = xs.resumable[:0]
	for _, x := range xs.idle {
		// Unparked as wakeOne does: it wakes counted as looking.
		checkCount("parked", xs.nIdle.Add(-1))
		xs.nSpinning.Add(1)
		x.wake <- nil
	}
	xs.idle = xs.idle[:0]
	for _, x := range xs.spare {
		x.wake <- nil
	}
	xs.spare = xs.spare[:0]
}

func (xs *crew) registerBlocked(x *Executor) bool {
	xs.mu.Lock()
	defer xs.mu.Unlock()
	if xs.pool.ending.Load() {
		return false
	}
	xs.blocked[x] = struct{}{}
	return true
}

func (xs *crew) unregisterBlocked(x *Executor) {
	xs.mu.Lock()
	delete(xs.blocked, x)
	xs.mu.Unlock()
}

// resume is called when the task x waits for is done: x queues for a worker,
// and an idle worker, if any, is woken to pass its worker on.
func (xs *crew) resume(x *Executor) {
	if !x.blocked.CompareAndSwap(1, 0) {
		return // it saw the result itself, or the run already woke it
	}
	xs.mu.Lock()
	delete(xs.blocked, x)
	if xs.pool.ending.Load() {
		xs.mu.Unlock()
		x.wake <- nil
		return
	}
	xs.resumable = append(xs.resumable, x)
	xs.nResumable.Add(1)
	xs.mu.Unlock()
	if xs.nIdle.Load() > 0 {
		xs.wakeOne()
	}
}

// handOff gives the worker of a blocking executor to a waiter that is ready
// to resume, or else to a new executor.
func (xs *crew) handOff(w *Worker) {
	if y, _, ok := popOldest(&xs.mu, &xs.resumable, &xs.nResumable); ok {
		// y may be the blocking executor itself, if its result came
		// already: it then takes its own worker back.
		y.wake <- w
		return
	}
	xs.start(w)
}

// passToResumable gives x's worker to the longest-waiting resumable
// executor. x then has nothing left to do and its goroutine ends.
func (xs *crew) passToResumable(x *Executor) bool {
	y, _, ok := popOldest(&xs.mu, &xs.resumable, &xs.nResumable)
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
