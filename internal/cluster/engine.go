package cluster

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/membership"
	"github.com/tsys-go/tsys/internal/runtimecore"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/share"
)

// engine is one job on this node: the pool its tasks run in, the
// scheduler policy that moves them, and the loans between this node and
// its peers. A node has one engine for the job it is the root of, or one
// for each job it serves (jobTable); a message of a job goes to the job's
// engine, and results, counters and failures stay with it.
//
// The engine itself drives the policy, a pure state machine, under mu:
// it hands it each event and carries out its actions (event, act), and
// publishes its advice (advise); it also carries out the sharing
// policy's grants (sharing.go), watches the root of a job served here
// (suspect.go), tells the tick whether it may rest (idletick.go), and
// reports the job's counters (counters, report). Its sides have types of
// their own: the lending side (lender: lender.go, lend.go), the
// borrowing side (borrower.go), and what the pool's workers call
// (remote.go). The lent tasks' ledger (in the lender), the borrowed ones
// (borrowBook), the timeline (jobTimeline) and the root's state
// (rootWatch) each have a lock of their own, taken after mu if at all.
// Lock order: the job table's mu before an engine's mu; no lock is held
// while sending.
type engine struct {
	n    *Node
	info share.Job
	// rooted is the job when this node is its root; nil when it serves.
	rooted *Job
	rt     *runtimecore.Runtime
	pool   *sched.Pool
	began  time.Time // when this node began its part in the job

	lender    *lender      // the lending side: the tasks lent to other nodes (lender.go, lend.go)
	borrower  *borrower    // the borrowing side: asking for work, taking it in (borrower.go)
	borrowed  *borrowBook  // the tasks borrowed from other nodes (borrowed.go)
	timeline  *jobTimeline // the job's timeline here (timeline.go)
	rootWatch *rootWatch   // the root of a job served here, beyond gossip (suspect.go)
	// failServing fails the run of a job served here with the root's
	// failure, through its context, even when the failure came before the
	// run began (Port.Fail drops a failure before any run); set before
	// the engine is entered in the job table, nil for a job rooted here.
	failServing context.CancelCauseFunc

	// mu orders the policy's events and guards what follows, the
	// borrower's maps, and the fields of a rooted job (Job).
	mu     sync.Mutex
	policy clusterpolicy.Policy
	// measured is the load the last tick measured; its rates go with the
	// ready count of the moment into load reports.
	measured clusterpolicy.Load
	serving  *serving // the pool's serving run, for a job of another root
	// ticked is the load measure took on the tick's last round, for the
	// tick to tell a node at work without counting again (dozeFor). The
	// tick's goroutine alone writes and reads it.
	ticked clusterpolicy.Load

	// hungryAfter is the policy's Advice.HungryAfter as Unix nanoseconds
	// (0: now; math.MaxInt64: only another event can help), so that idle
	// workers learn it from one atomic load rather than the lock.
	hungryAfter atomic.Int64
	// presence is the sharing policy's last word on the job (share.Grant):
	// not yet spoken, taking part, or not. A node not taking part takes no
	// more of the job's work, as a draining node.
	presence atomic.Int32
	// pushed: a worker made a task ready while a request waited (Pushed),
	// for the tick goroutine to tell the policy.
	pushed atomic.Bool
	// prefetched and ranDry are the policy's prefetch counters, as of its
	// last event (notePrefetch).
	prefetched, ranDry atomic.Int64
	lifelines          atomic.Int64 // lifelines sent

	// useful, rate, busy and taskTime measure Load; only the tick
	// goroutine uses them. usefulNow is the job's useful work so far.
	useful    clusterpolicy.UsefulWork
	rate      clusterpolicy.RateMeter
	busy      clusterpolicy.RateMeter
	taskTime  clusterpolicy.TaskTimeMeter
	usefulNow atomic.Int64

	// The job's network counters here (NetStats), which every side adds
	// to and counters reads.
	stealRequests atomic.Int64
	stealAnswers  atomic.Int64
	stealWait     atomic.Int64
	statusSent    atomic.Int64
	statusBytes   atomic.Int64
	remoteSteals  atomic.Int64
	tasksSent     atomic.Int64
	tasksReceived atomic.Int64
	firstWork     atomic.Int64 // ns from began to the first borrowed task; 0 before it
	tasksReturned atomic.Int64
	handedBack    atomic.Int64 // borrowed tasks handed back as the node left the job
	messagesSent  atomic.Int64
	bytesSent     atomic.Int64
}

// newEngine makes the engine of job on runtime rt, with a policy of its
// own that has heard of every peer, as if each had just joined. What the
// policy answers to that is dropped: the engine holds no task yet, and
// its first tick acts on the same knowledge.
func newEngine(n *Node, job share.Job, rooted *Job, rt *runtimecore.Runtime) *engine {
	e := &engine{
		n: n, info: job, rooted: rooted, rt: rt, pool: rt.Main(), began: time.Now(),
		policy:    n.makePolicy(),
		borrowed:  newBorrowBook(n.cfg.returns),
		rootWatch: &rootWatch{},
	}
	e.timeline = newJobTimeline(n.name, e.pool, n.log)
	e.lender = newLender(e)
	e.borrower = &borrower{e: e, fishedAt: map[clusterpolicy.NodeID]time.Time{}}
	n.jobsTotal.Add(1)
	e.pool.Port().SetRemote(remote{e})
	e.pool.Port().SetShare(e.pool.Workers())
	now := time.Now()
	e.mu.Lock()
	for id, m := range n.peers.members() {
		if e.hears(id, m) {
			e.policy.Membership(now, clusterpolicy.MemberEvent{Node: id, Zone: m.Zone, Joined: true})
			e.policy.LoadReport(now, id, m.Load)
		}
	}
	e.advise()
	e.mu.Unlock()
	return e
}

// root is the node the job's root task runs on.
func (e *engine) root() clusterpolicy.NodeID { return clusterpolicy.NodeID(e.info.Root) }

// hears says whether e's policy is told of member id, from its gossiped
// meta: every node that may serve the job and the job's root, but not a
// client of another job, which serves none: a policy would fish from it,
// or push to it, for nothing.
func (e *engine) hears(id clusterpolicy.NodeID, meta membership.Meta) bool {
	return !meta.Client || id == e.root()
}

// leaving says the engine takes no more work: the node drains, or the
// sharing policy took it from the job.
func (e *engine) leaving() bool {
	return e.n.draining.Load() || e.presence.Load() == presenceInactive
}

// The values of engine.presence.
const (
	presenceUnknown int32 = iota
	presenceActive
	presenceInactive
)

// event hands the policy one event, at the time it is handled, and carries
// out the actions it returns. Events reach the policy one at a time.
func (e *engine) event(ev func(now time.Time) []clusterpolicy.Action) {
	e.mu.Lock()
	acts := ev(time.Now())
	e.advise()
	e.mu.Unlock()
	e.act(acts)
}

// advise publishes the policy's advice to the workers, after every
// event, and rouses a dozing tick. e.mu is held (or the engine is not yet
// running).
func (e *engine) advise() {
	a := e.policy.Advice()
	if e.leaving() {
		// Every spawn a task, so that the pieces of what it still runs can
		// go to other nodes (Drain).
		a.Expose = math.MaxInt32
	}
	switch {
	case !a.HungryAfter.Before(clusterpolicy.Never):
		e.hungryAfter.Store(math.MaxInt64)
	case a.HungryAfter.Before(time.Unix(0, 1)):
		e.hungryAfter.Store(0) // the zero time, or any time long past
	default:
		e.hungryAfter.Store(a.HungryAfter.UnixNano())
	}
	e.pool.Port().SetExpose(a.Expose)
	e.pool.Port().SetReserve(a.Reserve)
	e.pool.Port().SetWanted(a.Deferred > 0)
	e.notePrefetch()
	e.n.tick.rouse() // the event may have given the node work, or its policy a time
}

// act carries out policy actions that leave the node.
func (e *engine) act(acts []clusterpolicy.Action) {
	for _, a := range acts {
		switch a.Kind {
		case clusterpolicy.Fish, clusterpolicy.Lifeline:
			if !e.leaving() {
				e.borrower.fish(a.Node, a.Count, a.Kind == clusterpolicy.Lifeline)
			}
		case clusterpolicy.Give:
			e.lender.push(a.Node, a.Count)
		case clusterpolicy.Refuse:
			e.lender.refuse(a.Node)
		case clusterpolicy.Report:
			e.reportLoad()
		}
	}
}

// reportLoad sends this node's load to every peer its policy hears of (a
// policy's Report), counted as status traffic, apart from tasks.
func (e *engine) reportLoad() {
	e.mu.Lock()
	l := e.measured
	e.mu.Unlock()
	now := e.pool.Port().Load()
	l.Ready, l.Idle = now.Ready, now.Idle
	m := &loadReport{Job: e.info.ID, Load: l}
	tm := encodeMessage(m)
	size := int64(messageBytes(tm))
	for id, addr := range e.n.peers.listFor(e.hears) {
		if err := e.n.out.transmitEncoded(addr, m, tm, false, e); err != nil {
			e.n.log.Debug("load report not sent", "peer", id, "err", err)
			continue
		}
		e.statusSent.Add(1)
		e.statusBytes.Add(size)
	}
}

// measure gives the policy the time and the load the tick measured; the
// tick goroutine calls it, with the process's CPU time.
func (e *engine) measure(now time.Time, cpu time.Duration, cpuOK bool) clusterpolicy.Load {
	l := e.pool.Port().Load()
	busy := e.pool.Port().BusyTime(now)
	useful := e.useful.Add(busy, cpu, cpuOK)
	e.usefulNow.Store(int64(useful))
	l.Rate = e.rate.Observe(now, useful)
	l.Busy = e.busy.Observe(now, busy)
	l.TaskTime = e.taskTime.Observe(now, useful, e.pool.Port().TasksDone())
	e.ticked = l
	e.event(func(now time.Time) []clusterpolicy.Action {
		e.measured = l
		return e.policy.Tick(now, l)
	})
	return l
}

// counters are the engine's network counters for its job; the re-runs
// and late results are the ledger's.
func (e *engine) counters() NetStats {
	rerun, late, backups := e.lender.counts()
	return NetStats{
		RemoteSteals:  e.remoteSteals.Load(),
		StatusSent:    e.statusSent.Load(),
		StatusBytes:   e.statusBytes.Load(),
		StealRequests: e.stealRequests.Load(),
		StealAnswers:  e.stealAnswers.Load(),
		StealWaitNs:   e.stealWait.Load(),
		UsefulNs:      e.usefulNow.Load(),
		TasksSent:     e.tasksSent.Load(),
		TasksReceived: e.tasksReceived.Load(),
		TasksRerun:    rerun,
		LateResults:   late,
		Backups:       backups,
		TasksReturned: e.tasksReturned.Load(),
		BytesSent:     e.bytesSent.Load(),
		MessagesSent:  e.messagesSent.Load(),
		Prefetched:    e.prefetched.Load(),
		RanDry:        e.ranDry.Load(),
		Lifelines:     e.lifelines.Load(),
	}
}

// report is the engine's report of its job, given its pool's counters.
func (e *engine) report(pool sched.Stats) NodeReport {
	return NodeReport{Node: string(e.n.name), Workers: e.pool.Workers(), Stats: JobStats{pool, e.counters()},
		PerWorker: WorkerStats(e.pool.View().WorkerStats()), FirstWorkNs: e.firstWork.Load()}
}
