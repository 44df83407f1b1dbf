package cluster

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/sched"
)

// lender is the lending side of one job on this node: the ledger of the
// tasks lent to other nodes (ledger.go), under a lock of its own, and
// what carries out its transitions: answering requests for work as the
// policy says (answerSteal, push, refuse: lend.go), taking tasks out of
// the pool and sending them, running them here again, completing them
// with the results that come back, asking borrowers about the loans they
// hold quietly.
//
// Lock order: an engine's mu before the lender's (answerSteal decides how
// many to lend under the engine's and lends them in the same critical
// section). mu guards the ledger and the silence only and is held for no
// call out.
type lender struct {
	e *engine // the job: its pool, its sends and its counters

	mu     sync.Mutex
	ledger *ledger
	// silence decides when a borrower has said nothing for too long, and
	// its loans start again here (silence.go, backup.go).
	silence *silence
	// anyBackup: a backup was started, whose completion the workers then
	// look for among their borrowed tasks' (backupReturned).
	anyBackup atomic.Bool

	// cannotRun are the borrowers that handed a loan back unrun (another
	// binary, an argument they could not decode): they are lent nothing
	// more of the job, which would only come back too.
	cannotRun firsts
}

func newLender(e *engine) *lender { return &lender{e: e, ledger: newLedger(), silence: newSilence()} }

// counts are the ledger's counts of the loans run here again, of the
// late results dropped and of the backups started.
func (l *lender) counts() (rerun, late, backups int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ledger.ended[rerunHere], l.ledger.lateResults, l.ledger.backedUp
}

// close ends the loans still open as the job ends here, and checks the
// ledger's invariant.
func (l *lender) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ledger.close()
	l.ledger.check()
}

// openLoans is how many of the job's tasks are lent and not yet settled:
// their results, or their borrowers' silence, are still to come.
func (l *lender) openLoans() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ledger.open)
}

// pending lists, by borrower, the loans still open at now.
func (l *lender) pending(now time.Time) []pendingLoans {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ledger.pending(now)
}

// lend takes up to count of the job's oldest ready tasks here out of
// the deques and opens a loan of each to node, which answers at addr.
func (l *lender) lend(to clusterpolicy.NodeID, addr string, count int) []taskRecord {
	if l.cannotRun.has(to) {
		return nil // a refusal: the borrower fishes elsewhere
	}
	var recs []taskRecord
	now := time.Now()
	for _, h := range l.e.pool.Port().Lend(count, lendable) {
		id := l.e.n.nextID.Add(1)
		r, err := lentRecord(id, h)
		if err != nil {
			l.e.n.log.Warn("cannot encode a task's argument; keeping it", "task", h.Kind().Name, "err", err)
			l.e.pool.Port().Inject(h)
			continue
		}
		l.mu.Lock()
		l.ledger.lend(id, h, to, addr, now)
		l.mu.Unlock()
		recs = append(recs, r)
	}
	l.e.timeline.lent(to, recs)
	return recs
}

// send sends a reply carrying lent tasks (or none: a refusal) to
// node, at its known address or else at fallback; tasks that cannot be
// sent run here after all.
func (l *lender) send(to clusterpolicy.NodeID, fallback string, m *stealReply) {
	m.ReplyTo = l.e.n.trAddr
	// Counted before the send: the borrower may count them received, and
	// the root add up the reports, before Send returns.
	l.e.tasksSent.Add(int64(len(m.Tasks)))
	if err := l.e.n.out.send(to, fallback, m, l.e); err != nil && len(m.Tasks) > 0 {
		l.e.tasksSent.Add(-int64(len(m.Tasks)))
		l.e.n.log.Warn("lent tasks not sent; running them here", "peer", to, "err", err)
		l.takeBack(to, m.Tasks)
	}
}

// takeBack runs here the tasks of a reply to node that could not be sent.
// They never left, so they are not counted as run again.
func (l *lender) takeBack(node clusterpolicy.NodeID, recs []taskRecord) {
	l.mu.Lock()
	var back []*sched.Header
	for _, r := range recs {
		if h, ok := l.ledger.settle(r.ID, node, handedBack); ok == settledOpen {
			back = append(back, h)
		}
	}
	l.mu.Unlock()
	l.e.pool.Port().Inject(back...)
}

// lentTo lists the tasks lent to node id whose results have not come back.
func (l *lender) lentTo(id clusterpolicy.NodeID) []uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ledger.lentTo(id)
}

// rerunLent runs here those of the tasks ids lent to peer whose results
// have not come back, saying why.
func (l *lender) rerunLent(peer clusterpolicy.NodeID, ids []uint64, why string) {
	l.mu.Lock()
	back := l.ledger.rerunAll(ids)
	l.mu.Unlock()
	l.rerun(peer, back, why)
}

// rerun runs here tasks whose loans to peer ended as rerunHere.
func (l *lender) rerun(peer clusterpolicy.NodeID, back []*sched.Header, why string) {
	if len(back) == 0 {
		return
	}
	l.e.n.log.Warn("running lent tasks here again; a result the borrower still sends is dropped", "peer", peer, "tasks", len(back), "why", why)
	l.e.pool.Port().Inject(back...)
}

// resultArrived completes a lent task with the result its borrower sent,
// or runs it here when the borrower gave it back. A result for a loan
// already run here again is dropped and counted.
func (l *lender) resultArrived(from clusterpolicy.NodeID, m *result) {
	how := resultHome
	if m.Rerun {
		how = handedBack
	}
	l.mu.Lock()
	h, s := l.ledger.settle(m.Task, from, how)
	l.mu.Unlock()
	switch s {
	case settledLate:
		l.e.n.netLog.Info("a result came after its task ran here again; dropped", "peer", from, "id", m.Task)
		return
	case settledStray:
		l.e.n.log.Debug("a result for no task lent to that peer", "peer", from, "id", m.Task)
		return
	case settledBackedUp:
		l.e.n.log.Debug("a lent task came back while its backup runs here", "peer", from, "id", m.Task)
		return
	}
	switch {
	case m.Rerun && m.Leaving:
		l.e.n.log.Debug("a node leaving or not serving the job handed a task back; running it here", "peer", from)
		l.e.tasksReturned.Add(1)
		l.e.pool.Port().Inject(h)
	case m.Rerun:
		if l.cannotRun.first(from) {
			l.e.n.netLog.Warn("the borrower could not run a task; running it here, and lending it no more of this job", "peer", from, "why", m.Err)
		} else {
			l.e.n.log.Debug("the borrower could not run a task; running it here", "peer", from, "why", m.Err)
		}
		l.e.tasksReturned.Add(1)
		l.e.pool.Port().Inject(h)
	case m.Err != "":
		l.e.pool.Port().Fail(&sched.ErrRemote{Node: from, Err: m.Err})
	default:
		if err := completeWith(h, m.Value); err != nil {
			l.e.n.netLog.Warn("a result does not decode; running the task here", "peer", from, "err", err)
			l.e.pool.Port().Inject(h)
			return
		}
		h.SetSpanClock(m.Span)
		l.e.pool.Port().Complete(h)
	}
}

// check asks borrowers about the loans they have held quietly, and
// runs here those whose borrowers have been silent for loanSilence. It
// checks the ledger's invariant.
func (l *lender) check(now time.Time) {
	l.mu.Lock()
	queries, silent := l.ledger.due(now)
	l.ledger.check()
	l.mu.Unlock()
	for _, q := range queries {
		if err := l.e.n.out.send(q.node, q.addr, &loanQuery{Job: l.e.info.ID, IDs: q.ids, ReplyTo: l.e.n.trAddr}, l.e); err != nil {
			l.e.n.log.Debug("a loan query was not sent", "peer", q.node, "err", err)
		}
	}
	for node, back := range silent {
		l.rerun(node, back, fmt.Sprintf("no word from the borrower about them for %v", loanSilence))
	}
	l.watch(now)
}

// heard takes a borrower's answer about its loans.
func (l *lender) heard(from clusterpolicy.NodeID, m *loanStatus) {
	now := time.Now()
	l.mu.Lock()
	lost := l.ledger.heard(from, m.Held, m.Gone, now)
	l.silence.answered(from, now)
	l.mu.Unlock()
	l.rerun(from, lost, "the borrower no longer holds them: their results were lost")
}
