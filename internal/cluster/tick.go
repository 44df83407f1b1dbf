package cluster

import (
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/cputime"
)

// ticker is the node's tick: one goroutine (run) that gives each job's
// policy the time and the load it measured, shares the workers between
// the jobs, has the lenders check their loans, the root invite again and
// the orphans be timed, and gossips the node's load; and that dozes
// while nothing here can change but on an event (idletick.go). run alone
// reads the clock and the fields it alone writes; rouse and the pushed
// signal come from any goroutine, and only signal.
type ticker struct {
	n *Node
	// pushed carries the workers' Pushed signals to the tick goroutine.
	pushed chan struct{}
	// wakeups counts the ticks the node handled: an idle one handles none.
	wakeups atomic.Int64
	// dozing: the tick stopped its clock, or set it to the policies' next
	// due, while every job's workers wait (idletick.go); an event rouses it.
	dozing atomic.Bool
	// stop ends run, which closes done as it returns (Node.Close).
	stop, done chan struct{}
}

// run gives the policies the time, shares the workers between the jobs,
// and gossips the node's load. With no job it publishes the load once and
// stops its clock until a job arrives; with jobs whose work is all
// elsewhere it dozes until its policies next need the time or an event
// comes (idletick.go).
func (t *ticker) run() {
	defer close(t.done)
	it := &idleTick{clock: t.n.cfg.newTicker(t.n.cfg.TickEvery), every: t.n.cfg.TickEvery, running: true, period: t.n.cfg.TickEvery}
	defer it.sleep()
	lastGossip, lastCheck := time.Time{}, time.Time{}
	var gossiped clusterpolicy.Load
	for {
		select {
		case <-t.stop:
			return
		case <-t.n.jobs.wake:
			t.dozing.Store(false)
			it.wake()
		case <-t.pushed:
			for _, e := range t.n.jobs.list() {
				if e.pushed.Swap(false) {
					e.event(func(now time.Time) []clusterpolicy.Action { return e.policy.Pushed(now, e.pool.Port().Lendable()) })
				}
			}
		case <-it.clock.C():
			t.dozing.Store(false) // the policies' events during this tick need not rouse it
			t.wakeups.Add(1)
			now := time.Now()
			jobs := t.n.jobs.list()
			total := t.measure(now, jobs)
			t.n.sharing.apply()
			if now.Sub(lastCheck) > checkEvery {
				lastCheck = now
				for _, e := range jobs {
					e.lender.check(now)
					if e.rooted != nil {
						e.rooted.reinviteSilent(now)
					}
				}
				t.n.orphans.dropOrphans(now)
			}
			wait, doze := t.dozeFor(now, jobs)
			if len(jobs) == 0 || doze || now.Sub(lastGossip) > 100*time.Millisecond {
				// Unchanged, the load is not gossiped again (membership).
				lastGossip, gossiped = now, steadyLoad(total, gossiped)
				t.n.ml.SetLoad(gossiped)
			}
			switch {
			case len(jobs) == 0:
				it.sleep()
			case doze:
				it.doze(wait)
			default:
				it.wake()
			}
		}
	}
}

// measure measures each job's load at now and sums them up: the node's.
func (t *ticker) measure(now time.Time, jobs []*engine) clusterpolicy.Load {
	total := clusterpolicy.Load{Workers: t.n.jobs.main.Workers()}
	if len(jobs) == 0 {
		return total
	}
	cpu, cpuOK := cputime.Process()
	for _, e := range jobs {
		l := e.measure(now, cpu, cpuOK)
		total.Ready += l.Ready
		total.Idle += l.Idle
		total.Rate += l.Rate
		total.Busy += l.Busy
		total.TaskTime = max(total.TaskTime, l.TaskTime)
	}
	return total
}
