package sched

import "time"

// Sharing the node's cores between pools: a node that serves several jobs
// runs one pool per job, and its sharing policy (package share) decides
// how many of each pool's workers may run tasks (Port.SetShare). A worker past
// the share waits at the top of its loop, between tasks, never inside
// one: a task runs to its end once begun (there is no preemption), so a
// share that shrinks takes effect as the running tasks finish.
//
// Waiting there, a worker is off the CPU and counts as idle for the
// node's useful work, but not as parked: its pool's load does not look
// hungry to the cluster (Load.Idle), and it never calls Remote.Hungry, so
// a job held back on this node fishes for nothing here. Its deque stays
// stealable by the pool's other workers and lendable to other nodes.

// shareRecheck bounds how long a waiting worker goes before it looks at
// its share again; a raised share wakes it at once (SetShare), and this
// covers the run's end and a resumable waiter that needs the worker.
const shareRecheck = time.Millisecond

// SetShare lets workers 0 to k-1 run tasks and holds the others back from
// their next task on (k is clamped to 0..Workers). A pool runs all its
// workers until told otherwise.
func (pt *Port) SetShare(k int) {
	k = min(max(k, 0), len(pt.pool.workers))
	if pt.share.Load() == int32(k) {
		return // the node's tick sets every pool's share, mostly unchanged
	}
	pt.shareMu.Lock()
	old := pt.share.Swap(int32(k))
	if int32(k) > old && pt.shareWake != nil {
		close(pt.shareWake)
		pt.shareWake = nil
	}
	pt.shareMu.Unlock()
}

// Share is how many workers may run tasks (SetShare).
func (pt *Port) Share() int { return int(pt.share.Load()) }

// heldBack says whether the executor's worker is past the pool's share.
func (x *Executor) heldBack() bool { return int32(x.w.ID) >= x.pool.port.share.Load() }

// waitForShare waits, off the CPU and counted idle, until the worker is
// within the share again, the run ends, or a released waiter needs a
// worker (the loop passes this one on then).
func (x *Executor) waitForShare() {
	p, w := x.pool, x.w
	pt := &p.port
	// The deque stays stealable while the worker waits: nothing private.
	x.publishWork(false)
	began := w.beginIdle()
	defer w.endIdle(began, p)
	t := time.NewTimer(shareRecheck)
	defer t.Stop()
	for x.heldBack() && !p.ending.Load() && p.crew.nResumable.Load() == 0 {
		pt.shareMu.Lock()
		if pt.shareWake == nil {
			pt.shareWake = make(chan struct{})
		}
		wake := pt.shareWake
		pt.shareMu.Unlock()
		if !x.heldBack() {
			return
		}
		select {
		case <-wake:
		case <-t.C:
			t.Reset(shareRecheck)
		}
	}
}
