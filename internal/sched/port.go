package sched

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Port is the side of a pool that the cluster engine drives (Pool.Port):
// it lends the pool's tasks to other nodes and injects theirs, completes
// lent tasks whose results came back, fails the run with another node's
// failure, publishes the policy's advice to the workers, shares the
// node's cores between jobs (workershare.go), and measures the node's
// load. The pool reaches the cluster the other way through Remote.
//
// Concurrency: every method may be called from any goroutine, at any
// time, during a run or between runs, several at once: the engine calls
// them from its reader, tick and sender goroutines while the workers run.
// What the engine sets (the advice, the share, the Remote) are atomics
// the workers read without a lock, at their next slow path; mu guards
// the queue of injected tasks only, whose length nInjected mirrors for
// the workers. SetRemote alone is for before the pool's first run.
type Port struct {
	pool *Pool

	remote Remote
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

	mu        sync.Mutex
	injected  []*Header // tasks from other nodes, oldest first
	nInjected atomic.Int32
}

// SetRemote connects the pool to a cluster; call before any run.
func (pt *Port) SetRemote(r Remote) { pt.remote = r }

// SetExpose sets how many ready tasks beyond the inlining threshold the
// workers keep in their deques, because other nodes want work (a policy's
// Advice.Expose). Workers see it at their next allowCCall slow path,
// within about maxStaleness.
func (pt *Port) SetExpose(n int) { pt.expose.Store(int32(max(0, n))) }

// SetWanted makes every push report to the Remote (Pushed) while another
// node's request waits for work (a policy's Advice.Deferred > 0).
func (pt *Port) SetWanted(on bool) { pt.wanted.Store(on) }

// SetReserve sets how many borrowed tasks the node keeps in hand: a worker
// that takes one and leaves fewer reports Hungry at once (a policy's
// Advice.Reserve; 0 never).
func (pt *Port) SetReserve(n int) { pt.reserve.Store(int32(max(0, n))) }

// Inject adds tasks that arrived from another node (borrowed tasks, or lent
// tasks taken back from a node that died) and wakes workers for them.
func (pt *Port) Inject(hs ...*Header) {
	if len(hs) == 0 {
		return
	}
	pt.mu.Lock()
	pt.injected = append(pt.injected, hs...)
	pt.nInjected.Add(int32(len(hs)))
	pt.mu.Unlock()
	xs := &pt.pool.crew
	for range hs {
		if xs.nIdle.Load() == 0 {
			break
		}
		xs.wakeOne()
	}
}

// takeInjected removes the oldest injected task, or returns nil. When the
// tasks left fall below the reserve (SetReserve), the node is running out of
// borrowed work: it reports Hungry now, so that the next tasks are on their
// way while the last ones run. Executors only.
func (pt *Port) takeInjected() *Header {
	h, left, ok := popOldest(&pt.mu, &pt.injected, &pt.nInjected)
	if !ok {
		return nil
	}
	if left < pt.reserve.Load() && pt.remote != nil {
		pt.remote.Hungry(false)
	}
	return h
}

// WithdrawInjected removes and returns the injected tasks no worker has
// taken yet: a node that leaves the cluster hands them back unstarted.
func (pt *Port) WithdrawInjected() []*Header {
	pt.mu.Lock()
	hs := pt.injected
	pt.injected = nil
	pt.nInjected.Add(-int32(len(hs)))
	pt.mu.Unlock()
	return hs
}

// Lend takes up to n of the oldest ready tasks, from the workers with the
// longest deques, to send to another node. The oldest task of a deque is
// the largest piece of work it holds in a divide-and-conquer program, which
// is what crossing a network is worth.
func (pt *Port) Lend(n int, canLend func(*Header) bool) []*Header {
	var out []*Header
	for len(out) < n {
		var best *Worker
		for _, w := range pt.pool.workers {
			if w.dq.Len() > 0 && (best == nil || w.dq.Len() > best.dq.Len()) {
				best = w
			}
		}
		if best == nil {
			break
		}
		h, lost := best.dq.Steal()
		if h == nil {
			if lost {
				continue
			}
			break
		}
		if !canLend(h) {
			// Not encodable: keep it here, and stop looking (it is back
			// in the pool's queue, not at the deque's top).
			pt.Inject(h)
			break
		}
		if counting {
			best.stolenFrom.Add(1)
		}
		out = append(out, h)
	}
	return out
}

// Complete publishes the result of a lent task that came back (the caller
// has decoded it into the frame) and releases its waiters.
func (pt *Port) Complete(h *Header) { h.complete(pt.pool) }

// Fail ends the current run with err (e.g. a task failed on another node).
func (pt *Port) Fail(err error) { pt.pool.fail(err) }

// Load is this node's load now, but for its Rate, which a RateMeter
// derives from BusyTime. Ready counts the tasks other goroutines can take:
// not those a busy worker keeps private above its deque's public floor
// (deque.go), which a request from another node makes public at the
// worker's next push or pop (SetWanted, Executor.offerWork).
func (pt *Port) Load() clusterpolicy.Load {
	p := pt.pool
	l := clusterpolicy.Load{Workers: len(p.workers), Idle: int(p.crew.nIdle.Load())}
	for _, w := range p.workers {
		l.Ready += w.dq.Len()
	}
	l.Ready += int(pt.nInjected.Load())
	return l
}

// Lendable is how many of the ready tasks Lend could take now: those of
// the workers' deques, not the borrowed ones in the injected queue, which
// are not lent on.
func (pt *Port) Lendable() int {
	n := 0
	for _, w := range pt.pool.workers {
		n += w.dq.Len()
	}
	return n
}

// TasksDone is how many tasks the workers have run in the current (or last)
// run, as they last published it: with each allowCCall grant (~10 us of
// work) and whenever they go idle. A worker that never inlines and never
// idles publishes nothing until the run ends.
func (pt *Port) TasksDone() int64 {
	var n int64
	for _, w := range pt.pool.workers {
		n += w.tasksDone.Load()
	}
	return n
}

// BusyTime is the time the workers have spent with work, summed over them,
// from the start of the current run (or of the last one) until now: the
// useful work a RateMeter turns into a rate. Between runs it stands still.
func (pt *Port) BusyTime(now time.Time) time.Duration {
	p := pt.pool
	span, end, ok := p.view.runSpan(now)
	if !ok {
		return 0
	}
	var busy time.Duration
	for _, w := range p.workers {
		busy += max(0, span-w.idleTime(end))
	}
	return busy
}
