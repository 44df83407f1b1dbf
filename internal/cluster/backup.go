package cluster

import (
	"fmt"
	"slices"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/invariant"
	"github.com/tsys-go/tsys/internal/sched"
)

// A backup is a copy of a lent task that runs here because its borrower
// went silent (silence.go says when): the copy is made from the task's
// argument as a borrower makes it (codec.go), marked borrowed so that its
// result comes to the lender (remote.Return), and injected into the pool,
// where it runs, and its pieces are lent, as any task. Whichever result
// comes first completes the lent task: the borrower's ends the loan as
// resultHome and the backup's is dropped; the backup's ends it as
// backedUp and the borrower's, should it come, is a late result, dropped
// and counted. A task run twice must be harmless: a task's argument and
// result are values (Register), and a lent action that acts outside its
// node may act twice, as it may when its borrower is declared dead.
//
// Nothing runs twice when nothing is wrong: a borrower that is there
// answers a probe in a fraction of the limit (silence.go), and the
// counter (NetStats.Backups) says how many ran.

// backupOf is the loan a backup runs for, and the lent task its result
// completes.
type backupOf struct {
	id uint64
	h  *sched.Header
}

// quiet lists the open loans without a backup, for silence to weigh.
func (l *ledger) quiet() []quietLoan {
	var out []quietLoan
	for id, lo := range l.open {
		if lo.backup == nil {
			out = append(out, quietLoan{id: id, node: lo.node, since: lo.heard})
		}
	}
	return out
}

// probe is the question to each of nodes, asked at now, about its open
// loans: whether it still holds them (and so, whether it is there).
func (l *ledger) probe(nodes []clusterpolicy.NodeID, now time.Time) []query {
	if len(nodes) == 0 {
		return nil
	}
	at := map[clusterpolicy.NodeID]int{}
	qs := make([]query, len(nodes))
	for i, node := range nodes {
		at[node] = i
		qs[i].node = node
	}
	for id, lo := range l.open {
		if i, ok := at[lo.node]; ok {
			lo.asked = now
			qs[i].addr = lo.addr
			qs[i].ids = append(qs[i].ids, id)
		}
	}
	for i := range qs {
		slices.Sort(qs[i].ids)
	}
	return qs
}

// lentTask is open loan id's task, if it is open without a backup.
func (l *ledger) lentTask(id uint64) (*sched.Header, clusterpolicy.NodeID, bool) {
	lo, ok := l.open[id]
	if !ok || lo.backup != nil {
		return nil, "", false
	}
	return lo.h, lo.node, true
}

// startBackup records b as the backup of open loan id, and says whether
// it is: a loan settled meanwhile, or backed up already, needs none.
func (l *ledger) startBackup(id uint64, b *sched.Header) bool {
	lo, ok := l.open[id]
	if !ok || lo.backup != nil {
		return false
	}
	lo.backup = b
	l.backups[b] = backupOf{id: id, h: lo.h}
	l.backedUp++
	return true
}

// backupDone takes backup b's completion, and returns the lent task its
// result completes, if it is the first result for its loan (the loan, if
// still open, ends as backedUp); nil if its loan's result came first, or
// b is no backup of this ledger's.
func (l *ledger) backupDone(b *sched.Header) *sched.Header {
	of, ok := l.backups[b]
	if !ok {
		return nil
	}
	delete(l.backups, b)
	if lo, open := l.open[of.id]; open && lo.backup == b {
		lo.backup = nil // so that end gives the task back
		return l.end(of.id, backedUp)
	}
	// Its loan ended while it ran, and not by a result (end kept it).
	return of.h
}

// checkBackups throws unless each open loan's backup is recorded for it,
// and each backup is of a lent task.
func (l *ledger) checkBackups() {
	for id, lo := range l.open {
		if lo.backup != nil && l.backups[lo.backup].id != id {
			invariant.Throw(fmt.Sprintf("cluster: loan ledger broken: loan %d's backup is not recorded", id))
		}
	}
	if int64(len(l.backups)) > l.backedUp {
		invariant.Throw(fmt.Sprintf("cluster: loan ledger broken: %d backups running, %d started", len(l.backups), l.backedUp))
	}
}

// watch, at now (the tick's check), asks the borrowers that have been
// quiet whether they are there, and backs up the loans of those silent
// for silence's limit.
func (l *lender) watch(now time.Time) {
	l.mu.Lock()
	loans := l.ledger.quiet()
	heard := map[clusterpolicy.NodeID]time.Time{}
	for _, lo := range loans {
		if _, ok := heard[lo.node]; !ok {
			heard[lo.node] = l.e.n.words.at(lo.node)
		}
	}
	probes, backups := l.silence.check(now, loans, heard)
	queries := l.ledger.probe(probes, now)
	limit := l.silence.limit()
	l.mu.Unlock()
	for _, q := range queries {
		if err := l.e.n.out.send(q.node, q.addr, &loanQuery{Job: l.e.info.ID, IDs: q.ids, ReplyTo: l.e.n.trAddr}, l.e); err != nil {
			l.e.n.log.Debug("a probe was not sent", "peer", q.node, "err", err)
		}
	}
	if len(backups) > 0 {
		l.backUp(backups, limit)
	}
}

// backUp starts a backup of each of the loans ids, whose borrowers have
// said nothing for limit.
func (l *lender) backUp(ids []uint64, limit time.Duration) {
	started := map[clusterpolicy.NodeID]int{}
	var run []*sched.Header
	for _, id := range ids {
		l.mu.Lock()
		h, node, ok := l.ledger.lentTask(id)
		l.mu.Unlock()
		if !ok {
			continue
		}
		// Made as the borrower made it, outside the lock: encoding an
		// argument is the task's own code.
		r, err := lentRecord(id, h)
		if err != nil {
			continue // it was encoded to be lent; it cannot fail now
		}
		b, refusal := borrowedTask(l.e.n.name, r)
		if refusal != "" {
			l.e.n.log.Warn("cannot back up a lent task", "task", r.Kind, "why", refusal)
			continue
		}
		l.mu.Lock()
		ok = l.ledger.startBackup(id, b)
		l.mu.Unlock()
		if ok {
			started[node]++
			run = append(run, b)
		}
	}
	if len(run) == 0 {
		return
	}
	l.anyBackup.Store(true)
	for node, n := range started {
		l.e.n.netLog.Warn("a borrower has said nothing for a while; running its loans here too, the first result wins", "peer", node, "tasks", n, "silent_for", limit.Round(time.Millisecond))
	}
	l.e.pool.Port().Inject(run...)
}

// backupReturned takes the completion of task b, a borrowed task that is
// not in the borrow book (remote.Return): if it is a backup of this
// lender's and the first result for its loan, its result completes the
// lent task; else it is dropped.
func (l *lender) backupReturned(b *sched.Header) {
	if !l.anyBackup.Load() {
		return
	}
	l.mu.Lock()
	h := l.ledger.backupDone(b)
	l.mu.Unlock()
	if h == nil {
		return
	}
	value, err := resultBytes(b)
	if err == nil {
		err = completeWith(h, value)
	}
	if err != nil {
		l.e.n.netLog.Warn("a backup's result does not carry over; running the task here", "task", b.Kind().Name, "err", err)
		l.e.pool.Port().Inject(h)
		return
	}
	h.SetSpanClock(b.SpanClock())
	l.e.pool.Port().Complete(h)
}
