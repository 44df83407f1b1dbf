package cluster

import (
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/sched"
)

// TestLedgerProperties drives the loan ledger with random interleavings of
// loans, results (right, from the wrong node, duplicated, for no loan),
// hand-backs, deaths, suspicions followed by refutations (the "dead"
// borrower's results arriving after all), borrowers' answers to queries,
// and silence, and checks after every step that:
//
//   - the invariant holds (check does not throw);
//   - no task is ever given back twice (completed, run here or both);
//   - a late result is counted exactly when its loan was re-run here and
//     it is the first result for it since;
//   - at the end, every task lent was given back exactly once, or its
//     loan ended with the job.
func TestLedgerProperties(t *testing.T) {
	ledgerProperties(t, 300, 24, func(m *ledgerModel) {
		t, l := m.t, m.l
		rerunOpen := map[uint64]bool{} // re-run, late result not yet seen
		// rerunNow notes what a re-run gave back to run here.
		rerunNow := func(step int, why string, hs []*sched.Header) {
			for _, h := range hs {
				rerunOpen[m.loan[h]] = true
			}
			m.give(step, why, hs...)
		}
		// notLentBy fails on a task of hs not lent to node.
		notLentBy := func(step int, node clusterpolicy.NodeID, why string, hs []*sched.Header) {
			for _, h := range hs {
				if lt := m.lent[m.loan[h]]; lt.node != node {
					t.Fatalf("step %d: %s's %s re-ran a loan of %s", step, node, why, lt.node)
				}
			}
		}
		for step := range 200 {
			switch op := m.r.IntN(9); op {
			case 0, 1: // lend a few
				m.lendSome()
			case 2, 3: // a result, from its borrower or another node
				id, ok := m.pick()
				if !ok {
					continue
				}
				from, how := m.word(id)
				_, wasOpen := l.open[id]
				h, s := l.settle(id, from, how)
				switch {
				case from == m.lent[id].node && wasOpen:
					if s != settledOpen || h != m.lent[id].h {
						t.Fatalf("step %d: an open loan's result settled as %v", step, s)
					}
					m.give(step, "result", h)
				case from == m.lent[id].node && rerunOpen[id] && how == resultHome:
					if s != settledLate || h != nil {
						t.Fatalf("step %d: a re-run loan's first result settled as %v", step, s)
					}
					delete(rerunOpen, id)
					m.late++
				default:
					if s != settledStray || h != nil {
						t.Fatalf("step %d: a result for no loan of %s settled as %v", step, from, s)
					}
				}
			case 4: // gossip declares a node dead (it may refute later: its results keep coming)
				rerunNow(step, "dead", l.rerunAll(l.lentTo(m.node())))
			case 5: // a borrower answers a query about some of its loans
				node := m.node()
				var held, gone []uint64
				for id, lt := range m.lent {
					if lt.node != node && m.r.IntN(4) != 0 {
						continue // mostly its own; sometimes another's (a confused peer)
					}
					if m.r.IntN(2) == 0 {
						held = append(held, id)
					} else {
						gone = append(gone, id)
					}
				}
				lost := l.heard(node, held, gone, m.now)
				notLentBy(step, node, "answer", lost)
				rerunNow(step, "answer", lost)
			case 6, 7: // time passes; queries are due, silence re-runs
				m.now = m.now.Add(time.Duration(m.r.IntN(3000)) * time.Millisecond)
				qs, silent := l.due(m.now)
				for _, q := range qs {
					for _, id := range q.ids {
						if m.lent[id].node != q.node {
							t.Fatalf("step %d: asked %s about a loan of %s", step, q.node, m.lent[id].node)
						}
					}
				}
				for node, hs := range silent {
					notLentBy(step, node, "silence", hs)
					rerunNow(step, "silent", hs)
				}
			case 8: // a lent task's reply could not be sent: it comes back unsent
				id, ok := m.pick()
				if !ok {
					continue
				}
				switch h, s := l.settle(id, m.lent[id].node, handedBack); s {
				case settledOpen:
					m.give(step, "unsent", h)
				case settledLate:
					t.Fatalf("step %d: a task that came back unsent counted as a late result", step)
				}
			}
			m.checkStep(step)
		}
		stillOpen := m.openTasks()
		l.close()
		l.check()
		if got := l.ended[jobOver]; got != int64(len(stillOpen)) {
			t.Fatalf("%d loans ended with the job, %d were open", got, len(stillOpen))
		}
		// Each task came back exactly once, or its loan ended with the
		// job and it never came back.
		m.checkGivenOnce(stillOpen)
	})
}

// TestLedgerThrowsOnABrokenInvariant: a loan opened twice, or an end that
// only the ledger may decide, throws rather than going on with a ledger
// that has lost count.
func TestLedgerThrowsOnABrokenInvariant(t *testing.T) {
	for name, f := range map[string]func(l *ledger){
		"opened twice": func(l *ledger) {
			l.lend(1, new(sched.Header), "a", "", time.Now())
			l.lend(1, new(sched.Header), "a", "", time.Now())
		},
		"a borrower re-runs": func(l *ledger) {
			l.lend(1, new(sched.Header), "a", "", time.Now())
			l.settle(1, "a", rerunHere)
		},
		"count lost": func(l *ledger) {
			l.lend(1, new(sched.Header), "a", "", time.Now())
			delete(l.open, 1)
			l.check()
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no throw")
				}
			}()
			f(newLedger())
		})
	}
}

// TestLedgerAsksThenReruns: a loan quiet for loanAskEvery is asked about
// once per period, and one silent for loanSilence runs here; an answer
// that the borrower holds it resets its silence.
func TestLedgerAsksThenReruns(t *testing.T) {
	l := newLedger()
	t0 := time.Unix(1000, 0)
	h := new(sched.Header)
	l.lend(7, h, "b", "10.0.0.2:1", t0)
	if qs, s := l.due(t0.Add(loanAskEvery / 2)); len(qs) != 0 || s != nil {
		t.Fatalf("asked too soon: %v %v", qs, s)
	}
	qs, _ := l.due(t0.Add(loanAskEvery))
	if len(qs) != 1 || qs[0].node != "b" || qs[0].addr != "10.0.0.2:1" || len(qs[0].ids) != 1 || qs[0].ids[0] != 7 {
		t.Fatalf("queries %+v", qs)
	}
	if qs, _ := l.due(t0.Add(loanAskEvery + loanAskEvery/2)); len(qs) != 0 {
		t.Fatalf("asked twice in a period: %+v", qs)
	}
	l.heard("b", []uint64{7}, nil, t0.Add(loanSilence-time.Second))
	if _, s := l.due(t0.Add(loanSilence)); s != nil {
		t.Fatalf("re-ran a loan its borrower holds: %v", s)
	}
	_, s := l.due(t0.Add(2*loanSilence - time.Second))
	if len(s["b"]) != 1 || s["b"][0] != h {
		t.Fatalf("silent loan not re-run: %v", s)
	}
	if _, st := l.settle(7, "b", resultHome); st != settledLate || l.lateResults != 1 {
		t.Fatalf("late result settled %v, %d counted", st, l.lateResults)
	}
	if _, st := l.settle(7, "b", resultHome); st != settledStray || l.lateResults != 1 {
		t.Fatalf("second late result settled %v, %d counted", st, l.lateResults)
	}
	l.check()
}
