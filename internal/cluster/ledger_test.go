package cluster

import (
	"fmt"
	"math/rand/v2"
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
	nodes := []clusterpolicy.NodeID{"a", "b", "c"}
	for seed := range uint64(300) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 24))
			l := newLedger()
			now := time.Unix(1000, 0)
			type lentTo struct {
				node clusterpolicy.NodeID
				h    *sched.Header
			}
			lent := map[uint64]lentTo{}     // every loan made
			back := map[*sched.Header]int{} // times each task came back
			rerunOpen := map[uint64]bool{}  // re-run, late result not yet seen
			var nextID uint64
			var late int64
			take := func(hs ...*sched.Header) {
				for _, h := range hs {
					back[h]++
					if back[h] > 1 {
						t.Fatalf("step: a task came back %d times", back[h])
					}
				}
			}
			ids := func() []uint64 {
				var out []uint64
				for id := range lent {
					out = append(out, id)
				}
				return out
			}
			pick := func() (uint64, bool) {
				all := ids()
				if len(all) == 0 {
					return 0, false
				}
				return all[r.IntN(len(all))], true
			}
			// rerunNow marks what a rerun returned as re-run.
			rerunNow := func(hs []*sched.Header) {
				for _, h := range hs {
					for id, lt := range lent {
						if lt.h == h {
							rerunOpen[id] = true
						}
					}
				}
				take(hs...)
			}
			for step := range 200 {
				switch op := r.IntN(9); op {
				case 0, 1: // lend a few
					node := nodes[r.IntN(len(nodes))]
					for range 1 + r.IntN(3) {
						nextID++
						h := new(sched.Header)
						lent[nextID] = lentTo{node, h}
						l.lend(nextID, h, node, "addr-"+string(node), now)
					}
				case 2, 3: // a result, from its borrower or another node
					id, ok := pick()
					if !ok {
						continue
					}
					from := lent[id].node
					if r.IntN(5) == 0 {
						from = nodes[r.IntN(len(nodes))]
					}
					how := resultHome
					if r.IntN(4) == 0 {
						how = handedBack
					}
					_, wasOpen := l.open[id]
					h, s := l.settle(id, from, how)
					switch {
					case from == lent[id].node && wasOpen:
						if s != settledOpen || h != lent[id].h {
							t.Fatalf("step %d: an open loan's result settled as %v", step, s)
						}
						take(h)
					case from == lent[id].node && rerunOpen[id] && how == resultHome:
						if s != settledLate || h != nil {
							t.Fatalf("step %d: a re-run loan's first result settled as %v", step, s)
						}
						delete(rerunOpen, id)
						late++
					default:
						if s != settledStray || h != nil {
							t.Fatalf("step %d: a result for no loan of %s settled as %v", step, from, s)
						}
					}
				case 4: // gossip declares a node dead (it may refute later: its results keep coming)
					node := nodes[r.IntN(len(nodes))]
					rerunNow(l.rerunAll(l.lentTo(node)))
				case 5: // a borrower answers a query about some of its loans
					node := nodes[r.IntN(len(nodes))]
					var held, gone []uint64
					for id, lt := range lent {
						if lt.node != node && r.IntN(4) != 0 {
							continue // mostly its own; sometimes another's (a confused peer)
						}
						if r.IntN(2) == 0 {
							held = append(held, id)
						} else {
							gone = append(gone, id)
						}
					}
					lost := l.heard(node, held, gone, now)
					for _, h := range lost {
						for _, lt := range lent {
							if lt.h == h && lt.node != node {
								t.Fatalf("step %d: %s's answer re-ran a loan of %s", step, node, lt.node)
							}
						}
					}
					rerunNow(lost)
				case 6, 7: // time passes; queries are due, silence re-runs
					now = now.Add(time.Duration(r.IntN(3000)) * time.Millisecond)
					qs, silent := l.due(now)
					for _, q := range qs {
						for _, id := range q.ids {
							if lent[id].node != q.node {
								t.Fatalf("step %d: asked %s about a loan of %s", step, q.node, lent[id].node)
							}
						}
					}
					for node, hs := range silent {
						for _, h := range hs {
							for _, lt := range lent {
								if lt.h == h && lt.node != node {
									t.Fatalf("step %d: silence of %s re-ran a loan of %s", step, node, lt.node)
								}
							}
						}
						rerunNow(hs)
					}
				case 8: // a lent task's reply could not be sent: it comes back unsent
					id, ok := pick()
					if !ok {
						continue
					}
					switch h, s := l.settle(id, lent[id].node, handedBack); s {
					case settledOpen:
						take(h)
					case settledLate:
						t.Fatalf("step %d: a task that came back unsent counted as a late result", step)
					}
				}
				l.check()
				if l.lateResults != late {
					t.Fatalf("step %d: %d late results counted, want %d", step, l.lateResults, late)
				}
			}
			stillOpen := map[*sched.Header]bool{}
			for _, lo := range l.open {
				stillOpen[lo.h] = true
			}
			l.close()
			l.check()
			if got := l.ended[jobOver]; got != int64(len(stillOpen)) {
				t.Fatalf("%d loans ended with the job, %d were open", got, len(stillOpen))
			}
			// Each task came back exactly once, or its loan ended with
			// the job and it never came back.
			for id, lt := range lent {
				switch {
				case stillOpen[lt.h] && back[lt.h] != 0:
					t.Fatalf("loan %d was open at the end, and its task came back", id)
				case !stillOpen[lt.h] && back[lt.h] != 1:
					t.Fatalf("loan %d ended, and its task came back %d times", id, back[lt.h])
				}
			}
		})
	}
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
