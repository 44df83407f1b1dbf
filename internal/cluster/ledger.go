package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/invariant"
	"github.com/tsys-go/tsys/internal/sched"
)

// A loan is a task this node lent to another for one job. The ledger holds
// a job's loans from the moment the tasks leave until each ends, and every
// loan ends exactly once, in one of:
//
//   - resultHome: its borrower's result came back and completed the task;
//   - handedBack: it came back without a result (its borrower was
//     leaving or unable to run it, or the reply carrying it could not be
//     sent), and it runs here, not counted as a re-run;
//   - rerunHere: its borrower was declared dead, said it no longer holds
//     it, or was not heard of about it for loanSilence; it runs here
//     again;
//   - jobOver: the job ended with the loan open (a task whose future no
//     one waited for, or a failed job): nothing waits for it any more;
//   - backedUp: its borrower was silent, so a copy of the task runs here
//     (its backup, backup.go), and the backup's result came first, or
//     the loan would have ended as handedBack or rerunHere while the
//     backup ran: the backup's result completes the task, which does not
//     run here a second time.
//
// A loan has at most one backup. Its borrower's result ends it as
// resultHome while the backup runs, and the backup's result is dropped.
//
// The invariant, which check enforces: every loan opened is either open or
// ended in exactly one way, so opened = open + the sum of the ends.
//
// A borrower that was only slow (gossip suspected it, or it paused) may
// still send the result of a loan re-run here. That result is late: it is
// dropped and counted once (lateResults), and the task, which completes
// from its run here, is never completed twice. The ledger remembers the
// loans it re-ran for this; a second result for one of them is a stray,
// and so is a task handed back after it was re-run (a borrower dropping
// the job hands back what it holds, and may not know it was re-run).
//
// Every loan keeps the address its borrower asked for answers at, so that
// a query about it reaches a borrower gossip no longer lists.
//
// The ledger is a pure state machine: no locks, clocks or sends. The
// engine holds it under its mutex, passes the time in, and carries out
// what it returns (running a task here, sending a query).
type ledger struct {
	open map[uint64]*openLoan
	// rerun are the loans ended by rerunHere or backedUp whose late
	// result may still come; a late result removes its loan.
	rerun map[uint64]clusterpolicy.NodeID
	// backups are the copies of lent tasks running here (backup.go),
	// each with its loan, until its result comes or its loan ends
	// without needing it (resultHome, jobOver).
	backups map[*sched.Header]backupOf
	// backedUp counts the backups started.
	backedUp int64

	opened      int64
	ended       [loanEnds]int64
	lateResults int64
}

// openLoan is a loan not yet ended.
type openLoan struct {
	h    *sched.Header
	node clusterpolicy.NodeID
	// addr is where the borrower asked for answers (its stealRequest's
	// ReplyTo, or its known address for a push): a query goes there when
	// gossip no longer lists it.
	addr string
	// heard is when the borrower last said it holds the loan (or when it
	// was lent); asked is when the ledger last asked.
	heard, asked time.Time
	// backup is the copy of the task running here since the borrower
	// went silent (backup.go); nil: none.
	backup *sched.Header
}

// loanEnd is how a loan ended.
type loanEnd uint8

const (
	resultHome loanEnd = iota + 1
	handedBack
	rerunHere
	jobOver
	backedUp
	loanEnds
)

func (k loanEnd) String() string {
	switch k {
	case resultHome:
		return "result home"
	case handedBack:
		return "handed back"
	case rerunHere:
		return "re-run here"
	case jobOver:
		return "job over"
	case backedUp:
		return "backed up"
	}
	return fmt.Sprintf("loanEnd(%d)", uint8(k))
}

// How often a borrower is asked about the loans it has held quietly, and
// how long a loan may go without its borrower saying it holds it before it
// runs here again. A borrower that holds a loan answers at once, so only a
// borrower that is gone, stopped or cut off goes silent for loanSilence;
// running its loans here then costs at worst a duplicate run, whose late
// result is dropped. The query period is short so that a loan whose result
// was lost on a broken connection runs again within about a second of the
// borrower saying it no longer holds it.
const (
	loanAskEvery = time.Second
	loanSilence  = 10 * time.Second
)

func newLedger() *ledger {
	return &ledger{open: map[uint64]*openLoan{}, rerun: map[uint64]clusterpolicy.NodeID{}, backups: map[*sched.Header]backupOf{}}
}

// lend opens loan id of task h to node, which answers at addr.
func (l *ledger) lend(id uint64, h *sched.Header, node clusterpolicy.NodeID, addr string, now time.Time) {
	if _, ok := l.open[id]; ok {
		invariant.Throw(fmt.Sprintf("cluster: loan %d opened twice", id))
	}
	l.open[id] = &openLoan{h: h, node: node, addr: addr, heard: now, asked: now}
	l.opened++
}

// end ends open loan id as how and returns its task; nil when the loan
// has a backup that runs the task here already (handedBack and rerunHere
// then end it as backedUp: the backup's result completes it).
func (l *ledger) end(id uint64, how loanEnd) *sched.Header {
	lo := l.open[id]
	delete(l.open, id)
	h := lo.h
	if lo.backup != nil {
		switch how {
		case handedBack, rerunHere:
			how, h = backedUp, nil
		case resultHome, jobOver:
			delete(l.backups, lo.backup) // its result is not needed
		}
	}
	l.ended[how]++
	if how == rerunHere || how == backedUp {
		l.rerun[id] = lo.node
	}
	return h
}

// What a result for a loan means (settle).
type settled uint8

const (
	settledOpen     settled = iota + 1 // it ended an open loan
	settledLate                        // its loan was re-run here: dropped, counted
	settledStray                       // no loan of that node: dropped
	settledBackedUp                    // it ended an open loan whose backup runs here: nothing more to do
)

// settle takes a borrower's word that loan id is over: its result
// (resultHome) or the task given back (handedBack). It returns the task
// when the loan was open and lent to from.
func (l *ledger) settle(id uint64, from clusterpolicy.NodeID, how loanEnd) (*sched.Header, settled) {
	if how != resultHome && how != handedBack {
		invariant.Throw(fmt.Sprintf("cluster: a borrower's word cannot end a loan as %v", how))
	}
	if lo, ok := l.open[id]; ok && lo.node == from {
		if h := l.end(id, how); h != nil {
			return h, settledOpen
		}
		return nil, settledBackedUp
	}
	if node, ok := l.rerun[id]; ok && node == from && how == resultHome {
		delete(l.rerun, id)
		l.lateResults++
		return nil, settledLate
	}
	return nil, settledStray
}

// lentTo lists the open loans of node.
func (l *ledger) lentTo(node clusterpolicy.NodeID) []uint64 {
	var ids []uint64
	for id, lo := range l.open {
		if lo.node == node {
			ids = append(ids, id)
		}
	}
	return ids
}

// rerunAll ends those of ids that are still open as rerunHere and returns
// their tasks, to run here.
func (l *ledger) rerunAll(ids []uint64) []*sched.Header {
	var back []*sched.Header
	for _, id := range ids {
		if _, ok := l.open[id]; ok {
			if h := l.end(id, rerunHere); h != nil {
				back = append(back, h)
			}
		}
	}
	return back
}

// heard records a borrower's answer to a query: it holds the loans held,
// and not those gone. Those gone that are still open here were lost (a
// result dropped with a broken connection, a borrower that dropped the
// job) and end as rerunHere, their tasks returned. A borrower says it
// holds a loan until its result (or the task handed back) is on its way,
// on the connection its answer then takes, ahead of the answer: a loan
// still open when its borrower says it is gone gets no result, unless the
// borrower's connection broke in between and the result came on a new
// one, racing the answer; then it is a late result, dropped.
func (l *ledger) heard(from clusterpolicy.NodeID, held, gone []uint64, now time.Time) []*sched.Header {
	for _, id := range held {
		if lo, ok := l.open[id]; ok && lo.node == from {
			lo.heard = now
		}
	}
	var lost []uint64
	for _, id := range gone {
		if lo, ok := l.open[id]; ok && lo.node == from {
			lost = append(lost, id)
		}
	}
	return l.rerunAll(lost)
}

// query is a question to a borrower about the loans it holds.
type query struct {
	node clusterpolicy.NodeID
	addr string
	ids  []uint64
}

// due returns, at now, the queries to send (one per borrower, for its
// loans quiet for loanAskEvery and not asked about within it) and the
// tasks of loans silent for loanSilence, ended as rerunHere, with their
// borrowers.
func (l *ledger) due(now time.Time) (queries []query, silent map[clusterpolicy.NodeID][]*sched.Header) {
	byNode := map[clusterpolicy.NodeID]int{}
	var overdue []uint64
	for id, lo := range l.open {
		switch {
		case now.Sub(lo.heard) >= loanSilence:
			overdue = append(overdue, id)
		case now.Sub(lo.heard) >= loanAskEvery && now.Sub(lo.asked) >= loanAskEvery:
			lo.asked = now
			i, ok := byNode[lo.node]
			if !ok {
				i = len(queries)
				byNode[lo.node] = i
				queries = append(queries, query{node: lo.node, addr: lo.addr})
			}
			queries[i].ids = append(queries[i].ids, id)
		}
	}
	for _, id := range overdue {
		node := l.open[id].node
		h := l.end(id, rerunHere)
		if h == nil {
			continue // its backup runs here
		}
		if silent == nil {
			silent = map[clusterpolicy.NodeID][]*sched.Header{}
		}
		silent[node] = append(silent[node], h)
	}
	return queries, silent
}

// close ends every open loan as jobOver: the job is over here.
func (l *ledger) close() {
	for id := range l.open {
		l.end(id, jobOver)
	}
	clear(l.rerun)
	clear(l.backups)
}

// check throws unless every loan opened is open or ended once, no loan
// re-run here is open, and the backups and their loans agree.
func (l *ledger) check() {
	sum := int64(len(l.open))
	for _, n := range l.ended {
		sum += n
	}
	if sum != l.opened {
		invariant.Throw(fmt.Sprintf("cluster: loan ledger broken: %d opened, %d open, ended %v", l.opened, len(l.open), l.ended))
	}
	for id := range l.rerun {
		if _, ok := l.open[id]; ok {
			invariant.Throw(fmt.Sprintf("cluster: loan ledger broken: loan %d both open and re-run", id))
		}
	}
	l.checkBackups()
}

// pendingLoans are the open loans of one borrower: how many, and how long
// since it last said it holds the quietest.
type pendingLoans struct {
	Node     clusterpolicy.NodeID
	Tasks    int
	Quietest time.Duration
}

// pending describes the open loans by borrower, for a person asking what
// a job waits for.
func (l *ledger) pending(now time.Time) []pendingLoans {
	at := map[clusterpolicy.NodeID]int{}
	var out []pendingLoans
	for _, lo := range l.open {
		i, ok := at[lo.node]
		if !ok {
			i = len(out)
			at[lo.node] = i
			out = append(out, pendingLoans{Node: lo.node})
		}
		out[i].Tasks++
		out[i].Quietest = max(out[i].Quietest, now.Sub(lo.heard))
	}
	slices.SortFunc(out, func(a, b pendingLoans) int { return strings.Compare(string(a.Node), string(b.Node)) })
	return out
}
