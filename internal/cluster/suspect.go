package cluster

import (
	"errors"
	"fmt"
	"github.com/tsys-go/tsys/internal/jobid"
	"github.com/tsys-go/tsys/internal/net/transport"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Suspicion is not death. Gossip declares a node dead when it misses its
// probes for a while, and a node that is only slow (a GC pause, a starved
// CPU, a stopped process, a congested link) misses them as surely as a
// dead one, then comes back and refutes it. Every rule below keeps a job
// going and correct through that, and keeps any wait bounded when the
// node does not come back:
//
//   - A lender re-runs at once what it lent to a node declared dead (the
//     safety net); the ledger drops the late result of such a loan, once,
//     and counts it (ledger.go).
//   - A lender asks each borrower about the loans it has held quietly for
//     loanAskEvery (loanQuery): a borrower that is alive says which it
//     holds; those it does not hold were lost and run here at once; a
//     loan whose borrower says nothing for loanSilence runs here too. So
//     a root never waits on a lent task without a bound.
//   - Long before that, a borrower holding loans that says nothing at all
//     (no result, request, report or answer to a probe) for a few times
//     the time its job's borrowers take to answer, a second at least, has
//     its loans backed up: started again on the lender, the first result
//     winning (silence.go, backup.go). A node cut off or stopped for
//     less than gossip's suspicion costs its job that limit and the work
//     it held, rather than the whole cut.
//   - A node serving a job whose root gossip declares dead serves on for
//     Config.RootGrace (the job is orphaned): its borrowed tasks still run,
//     and their results go to the address the root asked for answers at.
//     If the root comes back, nothing was lost; if not, or if the root's
//     host refuses a connection to its port (its process is gone), the
//     node drops the job, handing every borrowed task back to its lender, and asks the
//     root whether the job still runs if it comes back later (jobAsk): a
//     root that is alive invites it again.
//   - A root invites again a node that gossip declared dead and that comes
//     back, as it does a node that joins during the job.
//   - Either side may miss the other's word about a job while it holds
//     the other dead: a root invites again a node it has not heard from
//     for reinviteAfter (reinviteSilent), and a node says again whether it
//     takes part when its root is back or invites it again (tellRoot).

// DefaultRootGrace is how long a node serves a job whose root gossip
// declared dead before it drops the job (Config.RootGrace): longer than
// the pauses a loaded machine or a stop-the-world collection makes, so
// that a slow root finds its job still served, while a dead root's job
// gives way to the next job at once (admit replaces it).
const DefaultRootGrace = 30 * time.Second

// checkEvery is how often the tick checks the loans and the orphaned jobs:
// a small part of loanAskEvery.
const checkEvery = 100 * time.Millisecond

// maxDropped bounds the jobs a node remembers having dropped for want of
// their root, to ask about should the root come back.
const maxDropped = 16

// rootWatch is what a node serving a job knows of the job's root beyond
// gossip: where the root asked for answers, and, once gossip says the root
// died, since when (the job is orphaned) and whether its host refused a
// connection since. Safe for concurrent use; its lock is a leaf.
type rootWatch struct {
	// addr is where the root asked for answers (its jobStart's ReplyTo):
	// reports and failures go there when gossip no longer lists the
	// root, which may be only slow. Set before the engine is shared.
	addr string

	mu       sync.Mutex
	orphaned time.Time // zero while the root is a member
	refused  bool      // while orphaned, the root's host refused a connection (probe)
}

// gone: gossip says the root died at now. It reports whether that is news
// (the job was not orphaned yet); then the caller probes the root.
func (w *rootWatch) gone(now time.Time) (news bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.orphaned.IsZero() {
		return false
	}
	w.orphaned, w.refused = now, false
	return true
}

// back: the root is heard again. It reports whether the job was orphaned.
func (w *rootWatch) back() (wasOrphaned bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	was := !w.orphaned.IsZero()
	w.orphaned, w.refused = time.Time{}, false
	return was
}

// isOrphaned says whether gossip has the root dead.
func (w *rootWatch) isOrphaned() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.orphaned.IsZero()
}

// due says, at now, whether the job must be dropped: orphaned for grace,
// or its root's host refused a connection. It says so once. since is when
// the job became orphaned.
func (w *rootWatch) due(now time.Time, grace time.Duration) (drop, refused bool, since time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	since, refused = w.orphaned, w.refused
	drop = !since.IsZero() && (refused || now.Sub(since) >= grace)
	if drop {
		w.orphaned = time.Time{}
	}
	return drop, refused, since
}

// probe tells a root that is gone from one that is only slow, where it
// can: a dial of its task address that the root's host refuses means its
// process is gone (a stopped or starved process's port still accepts), and
// the job is dropped at once rather than after RootGrace. A dial that times
// out (the host is gone, or cut off) says nothing.
func (w *rootWatch) probe(addr string) {
	if addr == "" || transport.IsReplyAddr(addr) {
		return // a route back on a connection is no port to dial
	}
	nc, err := net.DialTimeout("tcp", addr, rootProbeTimeout)
	if err == nil {
		nc.Close()
		return
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		w.mu.Lock()
		w.refused = true
		w.mu.Unlock()
	}
}

// rootProbeTimeout bounds probe's dial.
const rootProbeTimeout = time.Second

// rootGone: gossip says the root of e's job died; gossiped is the task
// address gossip had for it. The node serves on. The probe dials gossip's
// address: the root's own word for where to answer may be a route back on
// its connection (trustReplyTo), which has no port to refuse.
func (e *engine) rootGone(now time.Time, gossiped string) {
	if e.rootWatch.gone(now) {
		e.n.log.Warn("gossip says the job's root died; serving the job on in case it is only slow", "root", e.root(), "for", e.n.cfg.RootGrace)
		addr := gossiped
		if addr == "" {
			addr = e.rootWatch.addr
		}
		go e.rootWatch.probe(addr)
	}
}

// rootListed: gossip lists the root of e's job (again).
func (e *engine) rootListed() {
	if e.rootWatch.back() {
		e.n.log.Info("the job's root is back; serving on", "root", e.root())
	}
}

// rootIsBack: the root of e's job is a member again after gossip held it
// dead, or it invited this node again to the job: either way it may have
// missed whether this node takes part (tellRoot).
func (e *engine) rootIsBack() {
	e.rootListed()
	e.tellRoot()
}

// orphans are the jobs served here whose root gossip lost: it times
// them (dropOrphans, on the tick), drops those whose root stays gone
// (abandon) and remembers them, and when a root is back, tells the jobs
// of its served here and asks it about those dropped (memberBack, on
// gossip's word). Safe for concurrent use; mu guards dropped alone and is
// a leaf.
type orphans struct {
	n *Node

	mu sync.Mutex
	// dropped are jobs this node dropped when their root stayed gone for
	// RootGrace, with their roots, to ask about if a root comes back; at
	// most maxDropped.
	dropped map[uint64]clusterpolicy.NodeID
}

// memberBack: node id is a member again, after gossip said it left or
// died. Jobs it roots that this node serves go on; jobs of its that this
// node dropped are asked about.
func (o *orphans) memberBack(id clusterpolicy.NodeID) {
	for _, e := range o.n.jobs.list() {
		if e.rooted == nil && e.root() == id {
			e.rootIsBack()
		}
	}
	o.mu.Lock()
	var ask []uint64
	for job, root := range o.dropped {
		if root == id {
			ask = append(ask, job)
			delete(o.dropped, job)
		}
	}
	o.mu.Unlock()
	for _, job := range ask {
		o.n.log.Info("the root of a job dropped here is back; asking whether the job still runs", "root", id, "job", jobid.ID(job))
		if err := o.n.out.send(id, "", &jobAsk{Job: job, ReplyTo: o.n.trAddr}, nil); err != nil {
			o.n.log.Warn("could not ask a job's root whether the job still runs", "root", id, "err", err)
		}
	}
}

// dropOrphans drops the jobs whose root has been gone for RootGrace: each
// borrowed task goes back to its lender (a lender alive runs it; one dead
// no longer needs it), and the job is remembered, to ask its root about.
func (o *orphans) dropOrphans(now time.Time) {
	for _, e := range o.n.jobs.list() {
		if _, back := o.n.peers.addr(e.root()); back {
			e.rootListed()
			continue
		}
		due, refused, since := e.rootWatch.due(now, o.n.cfg.RootGrace)
		switch {
		case due && refused:
			o.n.log.Warn("the job's root refuses connections: its process is gone; dropping the job and handing its borrowed tasks back", "root", e.root())
		case due:
			o.n.log.Warn("the job's root has not come back; dropping the job and handing its borrowed tasks back", "root", e.root(), "after", now.Sub(since).Round(time.Millisecond))
		}
		if due {
			o.abandon(e)
		}
	}
}

// abandon drops a job whose root is gone, perhaps only slow: it is
// remembered, to ask the root about should it come back, and dropped
// (dropServed) off the caller's goroutine, as stopping waits for the tasks
// running here.
func (o *orphans) abandon(e *engine) {
	root := e.root()
	o.n.jobs.forget(e) // its job's messages, and the root's return, are no longer its
	o.mu.Lock()
	if len(o.dropped) >= maxDropped {
		for job := range o.dropped {
			delete(o.dropped, job)
			break
		}
	}
	o.dropped[e.info.ID] = root
	o.mu.Unlock()
	// A root that came back before the job was remembered found nothing
	// to be asked about: ask now.
	if _, back := o.n.peers.addr(root); back {
		o.memberBack(root)
	}
	go o.n.server.dropServed(e)
}

// onJobAsk answers a node that dropped job m.Job: a job this node still
// roots invites it again.
func (in inbox) onJobAsk(from clusterpolicy.NodeID, m *jobAsk) {
	in.n.peers.learn(from, m.ReplyTo)
	e := in.n.jobs.of(m.Job)
	if e == nil || e.rooted == nil {
		return // over: the asker has nothing to do
	}
	j := e.rooted
	e.mu.Lock()
	if _, reported := j.reports[from]; !reported {
		delete(j.peers, from)
	}
	e.mu.Unlock()
	in.n.netLog.Info("a node that dropped the job asks whether it runs; inviting it again", "peer", from)
	j.invite(from, m.ReplyTo, true)
}

// onLoanQuery tells a lender which of the loans it asks about this node
// holds. A job over here holds none.
func (in inbox) onLoanQuery(from clusterpolicy.NodeID, m *loanQuery) {
	in.n.peers.learn(from, m.ReplyTo)
	st := &loanStatus{Job: m.Job}
	var held map[uint64]bool
	if e := in.n.jobs.of(m.Job); e != nil {
		held = e.borrowed.heldFrom(from)
	}
	for _, id := range m.IDs {
		if held[id] {
			st.Held = append(st.Held, id)
		} else {
			st.Gone = append(st.Gone, id)
		}
	}
	if err := in.n.out.send(from, m.ReplyTo, st, nil); err != nil {
		in.n.log.Debug("a loan status was not sent", "peer", from, "err", err)
	}
}

// Waiting says what job j waits for now, for a person whose job has run
// too long (tsys run --timeout): the tasks lent to each node and how long
// since that node last said it holds them, the peers whose end-of-job
// report has not come, and the work on this node.
func (j *Job) Waiting() string {
	e := j.e
	now := time.Now()
	e.mu.Lock()
	pending := e.lender.pending(now)
	var unreported []string
	if j.ended {
		for id := range j.peers {
			if _, ok := j.reports[id]; !ok {
				unreported = append(unreported, string(id))
			}
		}
	}
	e.mu.Unlock()
	var parts []string
	for _, p := range pending {
		parts = append(parts, fmt.Sprintf("%d tasks lent to %s (its last word on them %v ago)", p.Tasks, p.Node, p.Quietest.Round(time.Millisecond)))
	}
	if len(unreported) > 0 {
		slices.Sort(unreported)
		parts = append(parts, "the end-of-job reports of "+strings.Join(unreported, ", "))
	}
	l := e.pool.Port().Load()
	parts = append(parts, fmt.Sprintf("on this node %d ready tasks and %d of %d workers busy", l.Ready, l.Workers-l.Idle, l.Workers))
	return strings.Join(parts, "; ")
}
