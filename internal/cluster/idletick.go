package cluster

import (
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// tickClock is what the node's tick waits on. The tick stops it while the
// node has no job, and a job's arrival (jobTable.wake) starts it again: an
// idle node then wakes only for gossip and for what it is asked, rather
// than every TickEvery to measure a load that cannot change. Tests put a
// hand-driven one in its place (Config.newTicker).
type tickClock interface {
	C() <-chan time.Time
	Stop()
	Reset(d time.Duration)
}

// realTicker is a tickClock on a time.Ticker.
type realTicker struct{ t *time.Ticker }

func newRealTicker(d time.Duration) tickClock { return realTicker{time.NewTicker(d)} }

func (r realTicker) C() <-chan time.Time   { return r.t.C }
func (r realTicker) Stop()                 { r.t.Stop() }
func (r realTicker) Reset(d time.Duration) { r.t.Reset(d) }

// idleTick is the tick's part in keeping an idle node asleep: whether its
// clock runs, and at what period.
type idleTick struct {
	clock   tickClock
	every   time.Duration
	running bool
	// period is the clock's period while it runs: every, or while the node
	// dozes the time to its policies' next due.
	period time.Duration
}

// sleep stops the clock: the node has no job, and its load, now
// published, stays as it is until one comes.
func (it *idleTick) sleep() {
	if it.running {
		it.clock.Stop()
		it.running = false
	}
}

// wake starts the clock again at its period, for a job that arrived or
// an event that ends a doze.
func (it *idleTick) wake() {
	if !it.running || it.period != it.every {
		it.clock.Reset(it.every)
		it.running, it.period = true, it.every
	}
}

// doze sets the clock to fire d from now, when the policies next need the
// time; d <= 0 stops it, as nothing is due. The tick that fires, or an
// event before it (ticker.rouse), decides again.
func (it *idleTick) doze(d time.Duration) {
	if d <= 0 {
		it.sleep()
		return
	}
	if !it.running || it.period != d {
		it.clock.Reset(d)
		it.running, it.period = true, d
	}
}

// A node whose load alone cannot make its policies act dozes: the tick
// stops its clock until the earliest time its policies need it
// (clusterpolicy.Sleeper), rather than measuring the load every TickEvery.
// Two loads qualify:
//
//   - Waiting: a node that serves a job whose work is all elsewhere. Its
//     workers wait, and nothing here changes but on an event (an answer, a
//     request, a task, a peer's load report, a member leaving, the job's
//     end). It dozes for as long as its policies allow (bench/README.md,
//     "An idle node").
//   - At work: every worker of the node's one job runs a task. A worker
//     running dry is an event (Hungry), and so is a task made ready while
//     a peer waits for one (Pushed); meanwhile each tick would only take a
//     core from a worker, which on a node of as many workers as cores is
//     what makes a cluster of two nodes of one worker slower than one node
//     of two (bench/README.md, "A busy node's tick"). It dozes at most
//     maxBusyDoze, so that what the tick times on its own (the lender's
//     checks, a root's invitations, gossiping the load) runs late by no
//     more than that.
//
// Every policy event and every message rouses a dozing tick at once, and
// so does a worker that runs dry while the policy's advice holds its
// Hungry back (remote.Hungry).

// maxBusyDoze bounds a doze while every worker is at work: a quarter of
// the period of the tick's own checks.
const maxBusyDoze = checkEvery / 4

// rouse wakes the tick if it dozes: an event may have given the node
// work, or its policy something to time.
func (t *ticker) rouse() {
	if t.dozing.Load() {
		select {
		case t.n.jobs.wake <- struct{}{}:
		default:
		}
	}
}

// dozeFor says whether the tick, which just ticked jobs at now, may doze,
// and for how long (0: until an event). It sets dozing first, so that an
// event from then on rouses the tick, and clears it when the node must
// tick on.
func (t *ticker) dozeFor(now time.Time, jobs []*engine) (time.Duration, bool) {
	if len(jobs) == 0 || t.n.draining.Load() || !allRest(jobs, func(e *engine) clusterpolicy.Load { return e.ticked }) {
		return 0, false // a node at work among jobs, or with work ready, looks no further
	}
	t.dozing.Store(true)
	// Counted again: an event may have come since the tick measured, and
	// the policies say when they are due at the load they were told.
	if !allRest(jobs, func(e *engine) clusterpolicy.Load {
		if l := e.pool.Port().Load(); l.Waiting() == e.ticked.Waiting() {
			return l
		}
		return clusterpolicy.Load{} // waiting then, at work now, or the reverse: tick on
	}) {
		t.dozing.Store(false)
		return 0, false
	}
	due, limit := clusterpolicy.Never, time.Duration(0)
	for _, e := range jobs {
		if d := e.nextDue(now); d.Before(due) {
			due = d
		}
		if e.ticked.AtWork() {
			limit = maxBusyDoze
		}
	}
	wait := due.Sub(now)
	if !due.Before(clusterpolicy.Never) {
		wait = 0
	}
	if limit > 0 && (wait == 0 || wait > limit) {
		wait = limit
	}
	if wait == 0 || wait >= 2*t.n.cfg.TickEvery {
		return wait, true
	}
	// Due within a tick or two: ticking on costs no more.
	t.dozing.Store(false)
	return 0, false
}

// allRest: every job lets the tick rest at the load load gives for it.
func allRest(jobs []*engine, load func(*engine) clusterpolicy.Load) bool {
	for _, e := range jobs {
		if !e.rests(load(e), len(jobs)) {
			return false
		}
	}
	return true
}

// rests says whether e's job lets the tick rest at load l, on a node of
// jobs jobs: its policy can say when it is next due, the job is not
// leaving and no pushed task awaits the policy, and either
//
//   - the node waits: nothing is ready, lent or borrowed, and the job's
//     root is elsewhere and listed by gossip (a root gone is timed by the
//     tick, suspect.go); or
//   - every worker is at work, on the node's only job (how jobs share
//     its workers moves with their loads, sharing.go), whose root is this
//     node or listed by gossip.
func (e *engine) rests(l clusterpolicy.Load, jobs int) bool {
	if _, ok := e.policy.(clusterpolicy.Sleeper); !ok || e.leaving() || e.pushed.Load() {
		return false
	}
	switch {
	case l.Waiting():
		if e.rooted != nil || e.borrowed.len() > 0 || e.lender.openLoans() > 0 {
			return false
		}
	case l.AtWork():
		if jobs > 1 {
			return false
		}
		if e.rooted != nil {
			return true
		}
	default:
		return false
	}
	_, listed := e.n.peers.addr(e.root())
	return listed
}

// nextDue is when e's policy, a Sleeper, next needs the time, at the load
// the tick measured.
func (e *engine) nextDue(now time.Time) time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.policy.(clusterpolicy.Sleeper).NextDue(now, e.ticked)
}
