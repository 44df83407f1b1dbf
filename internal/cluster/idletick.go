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
// event before it (Node.rouse), decides again.
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

// A node that serves a job whose work is all elsewhere dozes: its workers
// wait, and nothing here changes but on an event (an answer, a request, a
// task, a peer's load report, a member leaving, the job's end), so the
// tick stops its clock until the earliest time its policies need it
// (clusterpolicy.Sleeper), rather than measuring an unchanging load
// every TickEvery (bench/README.md, "An idle node"). Every policy event
// and every message rouses it at once.

// rouse wakes the tick if it dozes: an event may have given the node
// work, or its policy something to time.
func (n *Node) rouse() {
	if n.dozing.Load() {
		select {
		case n.jobs.wake <- struct{}{}:
		default:
		}
	}
}

// dozeFor says whether the tick, which just ticked jobs at now, may doze,
// and for how long (0: until an event). It sets dozing first, so that an
// event from then on rouses the tick, and clears it when the node must
// tick on.
func (n *Node) dozeFor(now time.Time, jobs []*engine) (time.Duration, bool) {
	if len(jobs) == 0 || n.draining.Load() || !allQuiet(jobs) {
		return 0, false // a node at work, the common case, looks no further
	}
	n.dozing.Store(true)
	due := clusterpolicy.Never
	for _, e := range jobs {
		if !e.quiet(e.pool.Load()) { // counted again: an event may have come since
			n.dozing.Store(false)
			return 0, false
		}
		if d := e.nextDue(now); d.Before(due) {
			due = d
		}
	}
	if !due.Before(clusterpolicy.Never) {
		return 0, true
	}
	if wait := due.Sub(now); wait >= 2*n.cfg.TickEvery {
		return wait, true
	}
	// Due within a tick or two: ticking on costs no more.
	n.dozing.Store(false)
	return 0, false
}

// allQuiet: every job was quiet at the load this tick measured.
func allQuiet(jobs []*engine) bool {
	for _, e := range jobs {
		if !e.quiet(e.ticked) {
			return false
		}
	}
	return true
}

// quiet says whether e's job leaves this node nothing to do but wait for
// its peers: every worker waits, nothing is ready, lent or borrowed, the
// job's root is elsewhere and listed by gossip (a root gone is timed by
// the tick, suspect.go), and the policy can say when it is next due. l
// is the job's load here.
func (e *engine) quiet(l clusterpolicy.Load) bool {
	if _, ok := e.policy.(clusterpolicy.Sleeper); !ok || e.rooted != nil || e.leaving() || e.pushed.Load() {
		return false
	}
	if l.Ready > 0 || l.Idle < l.Workers {
		return false
	}
	if e.borrowed.len() > 0 || e.lender.openLoans() > 0 {
		return false
	}
	_, listed := e.n.peers.addr(e.root())
	return listed
}

// nextDue is when e's policy, a Sleeper, next needs the time.
func (e *engine) nextDue(now time.Time) time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.policy.(clusterpolicy.Sleeper).NextDue(now)
}
