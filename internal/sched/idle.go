package sched

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/invariant"
)

// The idle protocol: how a worker that runs out of work looks for more,
// parks, and is woken, without leaving work unseen and without waking a
// crowd for every push.
//
// An executor whose deque is empty is *looking* (counted in nSpinning): it
// steals from the other workers, takes injected tasks, and once the node
// has nothing for it tells the cluster it is hungry. After spinFor of
// fruitless rounds, or after one while no other worker is at work, it
// *parks* (counted in nIdle, listed in idle) on its
// wake channel. A push wakes one parked executor only when nobody is
// looking, as Go's scheduler does with its spinning Ms: one looking worker
// is enough to find the new task, and when it does (foundWork) it wakes
// another in turn, because work tends to come in bursts. For the same
// reason, in a pool of more workers than GOMAXPROCS at most maxLooking
// executors look at once; one that finds them all looking parks at once
// (parkAside), and a waker wakes one of them, never all.
//
// The transitions, each a function below:
//
//	startLooking  running -> looking        nSpinning++ (unless maxLooking look already)
//	parkAside     running -> parked         nIdle++ (under mu; no slot to look)
//	foundWork     looking -> running        nSpinning--, maybe wakeOne
//	stopLooking   looking -> running        nSpinning-- (the run ends, or a waiter wants the worker)
//	park          looking -> parked         nSpinning--, nIdle++ (under mu)
//	unpark        parked  -> looking        nIdle--, nSpinning++ (under mu, by the waker)
//	withdraw      parked  -> looking        the parker takes itself back (under mu)
//
// Why a push never goes unseen while every worker parks (the push-versus-
// park argument):
//
//  1. The pusher makes the task public (Deque.Release, a sequentially
//     consistent store) and then loads nIdle and nSpinning (notifyWork).
//     A task the pusher keeps private is outside this argument: nobody can
//     take it but its owner, who runs it or, once it sees a parked or
//     looking worker at its next push or pop, makes it public and goes on
//     from here (Executor.offerWork).
//  2. The parker stores nIdle++ and nSpinning-- (under mu) and then loads
//     every deque and queue (hasWork) before it sleeps.
//  3. Both sides store, then load what the other stored. With sequentially
//     consistent atomics at least one of them sees the other's store: either
//     the pusher sees nIdle > 0 with nobody looking and wakes a parked
//     executor, or the parker sees the task and withdraws.
//
// The same holds for Port.Inject and resume, which store their queue's
// count (nInjected, nResumable), then load nIdle.

// spinFor is how long an idle worker keeps trying to steal before it parks.
// Parking and waking cost a few microseconds each; spinning a little longer
// than that keeps fine-grained programs from paying it at every gap, and
// parking at all keeps an idle runtime off the CPU.
//
// A worker spins only while another worker of the pool is at work: only
// that one can push a task the spinner would catch. With every other
// worker looking or parked, work can come only from outside the pool (a
// task a peer node lends, a result that resumes a join, a new run), and
// what brings it (the node's reader goroutine, or another process on the
// same cores) needs the core the spinner holds: a node of one worker
// spinning for its peer's answer makes that answer and its own delivery
// wait for it (bench/README.md, "A lone worker does not spin").
const spinFor = 50 * time.Microsecond

// othersAtWork says whether a worker of p other than the looking caller
// is at work, neither looking nor parked.
func (xs *crew) othersAtWork() bool {
	return int32(len(xs.pool.workers))-xs.nIdle.Load()-xs.nSpinning.Load() > 0
}

// findWork looks for a task while the executor's deque is empty. It returns
// a task, or nil when the loop should look again (the run is ending, or a
// waiter wants the worker).
func (x *Executor) findWork() *Header {
	p, w := x.pool, x.w
	xs := &p.crew
	looking := xs.startLooking()
	began := w.beginIdle()
	defer w.endIdle(began, p)
	if !looking {
		xs.parkAside(x)
	}
	tries := 0
	var spinUntil time.Time
	for {
		if p.ending.Load() || xs.nResumable.Load() > 0 {
			xs.stopLooking()
			return nil
		}
		h := w.dq.Pop()
		if h == nil && p.port.nInjected.Load() > 0 {
			h = p.port.takeInjected()
		}
		if h == nil && tries < p.localTries {
			tries++
			h = xs.stealLocal(w)
		}
		if h != nil {
			xs.foundWork()
			return h
		}
		if tries < p.localTries {
			continue
		}
		// Nothing at home for this worker: a round of local attempts has
		// failed.
		if p.port.remote != nil {
			p.port.remote.Hungry(true)
		}
		now := time.Now()
		if spinUntil.IsZero() {
			spinUntil = now.Add(spinFor)
		}
		if now.Before(spinUntil) && xs.othersAtWork() {
			runtime.Gosched()
		} else {
			xs.park(x)
			spinUntil = time.Time{}
		}
		tries = 0
	}
}

// startLooking: the executor's deque is empty and it begins to look,
// unless maxLooking executors look already (false: it must parkAside).
func (xs *crew) startLooking() bool {
	if !xs.capLooking {
		xs.nSpinning.Add(1)
		return true
	}
	for {
		n := xs.nSpinning.Load()
		if n >= xs.maxLooking {
			return false
		}
		if xs.nSpinning.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// stopLooking: the executor leaves off looking without a task. If it was
// the last one looking, an executor parked aside may be relying on it
// (parkAside): wake one, which looks in its stead.
func (xs *crew) stopLooking() {
	n := xs.nSpinning.Add(-1)
	checkCount("looking", n)
	if xs.capLooking && n == 0 && xs.nIdle.Load() > 0 {
		xs.wakeOne()
	}
}

// foundWork: the executor found a task. If it was the last one looking and
// some are parked, there may be more work where it came from: wake one.
func (xs *crew) foundWork() {
	n := xs.nSpinning.Add(-1)
	checkCount("looking", n)
	if n == 0 && xs.nIdle.Load() > 0 {
		xs.wakeOne()
	}
}

// notifyWork is called after a task became visible (a push): wake a parked
// executor when nobody is looking. Step 1 of the push-versus-park argument.
func (xs *crew) notifyWork() {
	if xs.nIdle.Load() > 0 && xs.nSpinning.Load() == 0 {
		xs.wakeOne()
	}
}

// park sleeps x until woken. It counts as looking when it enters and when
// it returns: the waker counts it on its behalf (unpark).
func (xs *crew) park(x *Executor) {
	xs.mu.Lock()
	if xs.pool.ending.Load() || xs.nResumable.Load() > 0 {
		xs.mu.Unlock()
		return
	}
	xs.idle = append(xs.idle, x)
	checkCount("parked", xs.nIdle.Add(1))
	checkCount("looking", xs.nSpinning.Add(-1))
	xs.mu.Unlock()
	// Step 2: advertised as parked; look once more so that a push that
	// missed the advertisement is not left waiting.
	if xs.hasWork() && xs.withdraw(x) {
		return
	}
	<-x.wake
}

// parkAside parks x, which found maxLooking executors looking already,
// without looking itself: one looking executor finds a new task as well
// as a thousand, and a thousand of them on a few cores cost a job
// O(W^2) (bench/README.md "Many workers"). It returns counted as looking,
// as park does.
//
// Why no task is left unseen: the executor advertises itself parked
// (nIdle++) and then loads nSpinning. If someone is looking, that looker
// is answerable for every public task: it takes one and, the last to
// stop looking, wakes a parked executor (foundWork, stopLooking), or it
// parks itself and its own scan, made after this store, sees the task
// (park, step 2). If nobody is looking, the executor scans as park does.
func (xs *crew) parkAside(x *Executor) {
	xs.mu.Lock()
	if xs.pool.ending.Load() || xs.nResumable.Load() > 0 {
		xs.nSpinning.Add(1)
		xs.mu.Unlock()
		return
	}
	xs.idle = append(xs.idle, x)
	checkCount("parked", xs.nIdle.Add(1))
	xs.mu.Unlock()
	if xs.nSpinning.Load() == 0 && xs.hasWork() && xs.withdraw(x) {
		return
	}
	<-x.wake
}

// withdraw takes a parking executor back from the idle list, unless a
// waker already took it (then a wake is on its way and must be received).
func (xs *crew) withdraw(x *Executor) bool {
	xs.mu.Lock()
	defer xs.mu.Unlock()
	i := slices.Index(xs.idle, x)
	if i < 0 {
		return false
	}
	xs.idle = slices.Delete(xs.idle, i, i+1)
	checkCount("parked", xs.nIdle.Add(-1))
	xs.nSpinning.Add(1)
	return true
}

// wakeOne wakes one parked executor (unpark), counting it as looking on
// its behalf so that concurrent pushes do not wake a crowd.
func (xs *crew) wakeOne() {
	xs.mu.Lock()
	n := len(xs.idle)
	if n == 0 {
		xs.mu.Unlock()
		return
	}
	x := xs.idle[n-1]
	xs.idle = xs.idle[:n-1]
	checkCount("parked", xs.nIdle.Add(-1))
	xs.nSpinning.Add(1)
	xs.mu.Unlock()
	x.wake <- nil
}

// hasWork reports whether a parking executor should look again.
func (xs *crew) hasWork() bool {
	p := xs.pool
	if p.ending.Load() || xs.nResumable.Load() > 0 || p.port.nInjected.Load() > 0 {
		return true
	}
	for _, w := range p.workers {
		if w.dq.Len() > 0 {
			return true
		}
	}
	return false
}

// checkCount throws when a count of the idle protocol went negative: a
// transition was made twice, or from the wrong state, and executors would
// then sleep through work or spin forever.
func checkCount(what string, n int32) {
	if n < 0 {
		invariant.Throw(fmt.Sprintf("sched: %d executors %s: a transition of the idle protocol was made from the wrong state", n, what))
	}
}

// idleClock is the idle time of one worker, readable while it runs: the
// rate of useful work is measured from it (Port.BusyTime).
type idleClock struct {
	total atomic.Int64 // nanoseconds of idle stretches that ended
	since atomic.Int64 // start of the current stretch (UnixNano), 0 if none
}

// beginIdle starts an idle stretch of w and returns its start.
func (w *Worker) beginIdle() time.Time {
	w.publish()
	now := time.Now()
	w.idle.since.Store(now.UnixNano())
	return now
}

// endIdle ends the stretch begun at began, and records it on p's
// timeline and stream if they record.
func (w *Worker) endIdle(began time.Time, p *Pool) {
	now := time.Now()
	w.idle.total.Add(int64(now.Sub(began)))
	w.idle.since.Store(0)
	if tl := p.view.timeline.Load(); tl != nil {
		tl.recordIdle(w, began, now)
	}
	if s := p.view.stream.Load(); s != nil {
		s.add(w, eventIdle, 0, began, now)
	}
}

// idleTime is w's idle time up to now, counting a stretch in progress.
func (w *Worker) idleTime(now time.Time) time.Duration {
	d := w.idle.total.Load()
	if s := w.idle.since.Load(); s != 0 {
		d += max(0, now.UnixNano()-s)
	}
	return time.Duration(d)
}
