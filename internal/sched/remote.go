package sched

import (
	"context"
	"fmt"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Remote is how a pool reaches other nodes: the cluster engine implements
// it. Its methods are called by the pool's workers, several at once; they
// must not block: they consult the policy's advice and queue work for the
// network.
type Remote interface {
	// Hungry: a worker found no work at home. Called once per round of
	// fruitless local steal attempts, so it must cost little when there is
	// nothing to do (an atomic load of the policy's advice).
	Hungry()
	// Pushed: a worker pushed a task while SetWanted(true) holds. Called
	// on the spawn path: it must only signal.
	Pushed()
	// Return sends the result of a borrowed task to the node it came from.
	Return(h *Header)
	// Failed: the run failed here (a task's error or panic, the caller's
	// cancellation, Pool.Fail), so that the other nodes of the job stop
	// starting its tasks now rather than when this node's running tasks
	// have returned. Called under the pool's lock: it must only queue.
	Failed(err error)
}

// SetRemote connects the pool to a cluster; call before any run.
func (p *Pool) SetRemote(r Remote) { p.remote = r }

// Inject adds tasks that arrived from another node (borrowed tasks, or lent
// tasks taken back from a node that died) and wakes workers for them.
func (p *Pool) Inject(hs ...*Header) {
	if len(hs) == 0 {
		return
	}
	p.mu.Lock()
	p.injected = append(p.injected, hs...)
	p.nInjected.Add(int32(len(hs)))
	p.mu.Unlock()
	for range hs {
		if p.nIdle.Load() == 0 {
			break
		}
		p.wakeOne()
	}
}

// takeInjected removes the oldest injected task, or returns nil. When the
// tasks left fall below the reserve (SetReserve), the node is running out of
// borrowed work: it reports Hungry now, so that the next tasks are on their
// way while the last ones run.
func (p *Pool) takeInjected() *Header {
	h, left, ok := popOldest(&p.mu, &p.injected, &p.nInjected)
	if !ok {
		return nil
	}
	if left < p.reserve.Load() && p.remote != nil {
		p.remote.Hungry()
	}
	return h
}

// WithdrawInjected removes and returns the injected tasks no worker has
// taken yet: a node that leaves the cluster hands them back unstarted.
func (p *Pool) WithdrawInjected() []*Header {
	p.mu.Lock()
	hs := p.injected
	p.injected = nil
	p.nInjected.Add(-int32(len(hs)))
	p.mu.Unlock()
	return hs
}

// SetWanted makes every push report to the Remote (Pushed) while another
// node's request waits for work (a policy's Advice.Deferred > 0).
func (p *Pool) SetWanted(on bool) { p.wanted.Store(on) }

// SetReserve sets how many borrowed tasks the node keeps in hand: a worker
// that takes one and leaves fewer reports Hungry at once (a policy's
// Advice.Reserve; 0 never).
func (p *Pool) SetReserve(n int) { p.reserve.Store(int32(max(0, n))) }

// Lend takes up to n of the oldest ready tasks, from the workers with the
// longest deques, to send to another node. The oldest task of a deque is
// the largest piece of work it holds in a divide-and-conquer program, which
// is what crossing a network is worth.
func (p *Pool) Lend(n int, canLend func(*Header) bool) []*Header {
	var out []*Header
	for len(out) < n {
		var best *Worker
		for _, w := range p.workers {
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
			p.Inject(h)
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
func (p *Pool) Complete(h *Header) { h.complete(p) }

// Load is this node's load now, but for its Rate, which a RateMeter
// derives from BusyTime. Ready counts the tasks other goroutines can take:
// not those a busy worker keeps private above its deque's public floor
// (deque.go), which a request from another node makes public at the
// worker's next push or pop (SetWanted, Executor.offerWork).
func (p *Pool) Load() clusterpolicy.Load {
	l := clusterpolicy.Load{Workers: len(p.workers), Idle: int(p.nIdle.Load())}
	for _, w := range p.workers {
		l.Ready += w.dq.Len()
	}
	l.Ready += int(p.nInjected.Load())
	return l
}

// Lendable is how many of the ready tasks Lend could take now: those of
// the workers' deques, not the borrowed ones in the injected queue, which
// are not lent on.
func (p *Pool) Lendable() int {
	n := 0
	for _, w := range p.workers {
		n += w.dq.Len()
	}
	return n
}

// TasksDone is how many tasks the workers have run in the current (or last)
// run, as they last published it: with each allowCCall grant (~10 us of
// work) and whenever they go idle. A worker that never inlines and never
// idles publishes nothing until the run ends.
func (p *Pool) TasksDone() int64 {
	var n int64
	for _, w := range p.workers {
		n += w.tasksDone.Load()
	}
	return n
}

// BusyTime is the time the workers have spent with work, summed over them,
// from the start of the current run (or of the last one) until now: the
// useful work a RateMeter turns into a rate. Between runs it stands still.
func (p *Pool) BusyTime(now time.Time) time.Duration {
	span, end, ok := p.runSpan(now)
	if !ok {
		return 0
	}
	var busy time.Duration
	for _, w := range p.workers {
		busy += max(0, span-w.idleTime(end))
	}
	return busy
}

// runSpan is how long the current or last run has lasted at now, and when
// its span ends (now, or when it ended); ok is false before any run.
func (p *Pool) runSpan(now time.Time) (span time.Duration, end time.Time, ok bool) {
	began := p.began.Load()
	if began == 0 {
		return 0, now, false
	}
	e := now.UnixNano()
	if ended := p.ended.Load(); ended != 0 {
		e = ended
	}
	return time.Duration(max(0, e-began)), time.Unix(0, e), true
}

// Serve runs the pool's workers without a root task, for tasks that arrive
// from other nodes, until stop is closed, ctx ends or the run fails (a
// task it ran panicked or failed, or Fail was called). It returns the
// counters, and the failure, if one came before stop.
func (p *Pool) Serve(ctx context.Context, stop <-chan struct{}) (Stats, error) {
	return p.session(ctx, nil, stop)
}

// ErrRemote wraps an error reported by another node.
type ErrRemote struct {
	Node clusterpolicy.NodeID
	Err  string
}

func (e *ErrRemote) Error() string { return fmt.Sprintf("node %s: %s", e.Node, e.Err) }

// Fail ends the current run with err (e.g. a task failed on another node).
func (p *Pool) Fail(err error) { p.fail(err) }
