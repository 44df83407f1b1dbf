package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/sched"
)

// ledgerModel is what the ledger's property tests (TestLedgerProperties,
// TestLedgerBackupProperties) know apart from the ledger: the loans they
// made, to whom, and how often each task was given back, so that each
// test's steps check the ledger against it.
type ledgerModel struct {
	t      *testing.T
	r      *rand.Rand
	l      *ledger
	now    time.Time
	lent   map[uint64]lentTo        // every loan made
	loan   map[*sched.Header]uint64 // the loan of each task lent
	given  map[*sched.Header]int    // times each task was given back
	late   int64                    // late results the ledger should have counted
	nextID uint64
}

// lentTo is a loan of the model: its borrower and its task.
type lentTo struct {
	node clusterpolicy.NodeID
	h    *sched.Header
}

// modelNodes are the borrowers of the model's loans.
var modelNodes = []clusterpolicy.NodeID{"a", "b", "c"}

// ledgerProperties runs f as a subtest for each of seeds seeds, on a
// fresh ledger and model, with random numbers from seed and stream (a
// test's own, so that two tests do not walk the same interleavings).
func ledgerProperties(t *testing.T, seeds, stream uint64, f func(m *ledgerModel)) {
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			f(&ledgerModel{
				t:     t,
				r:     rand.New(rand.NewPCG(seed, stream)),
				l:     newLedger(),
				now:   time.Unix(1000, 0),
				lent:  map[uint64]lentTo{},
				loan:  map[*sched.Header]uint64{},
				given: map[*sched.Header]int{},
			})
		})
	}
}

// node is a borrower at random.
func (m *ledgerModel) node() clusterpolicy.NodeID { return modelNodes[m.r.IntN(len(modelNodes))] }

// lendSome lends one to three new tasks to a borrower at random.
func (m *ledgerModel) lendSome() {
	node := m.node()
	for range 1 + m.r.IntN(3) {
		m.nextID++
		h := new(sched.Header)
		m.lent[m.nextID], m.loan[h] = lentTo{node, h}, m.nextID
		m.l.lend(m.nextID, h, node, "addr-"+string(node), m.now)
	}
}

// pick is a loan made at random, open or not; false before the first.
func (m *ledgerModel) pick() (uint64, bool) {
	if len(m.lent) == 0 {
		return 0, false
	}
	ids := make([]uint64, 0, len(m.lent))
	for id := range m.lent {
		ids = append(ids, id)
	}
	slices.Sort(ids) // not the map's order: a seed replays its run
	return ids[m.r.IntN(len(ids))], true
}

// word is a message about loan id at random: a result or the task handed
// back, mostly from its borrower, now and then from another node.
func (m *ledgerModel) word(id uint64) (from clusterpolicy.NodeID, how loanEnd) {
	from = m.lent[id].node
	if m.r.IntN(5) == 0 {
		from = m.node()
	}
	how = resultHome
	if m.r.IntN(4) == 0 {
		how = handedBack
	}
	return from, how
}

// give notes tasks given back at a step, failing on one given twice.
func (m *ledgerModel) give(step int, why string, hs ...*sched.Header) {
	m.t.Helper()
	for _, h := range hs {
		m.given[h]++
		if m.given[h] > 1 {
			m.t.Fatalf("step %d (%s): a task was given back %d times", step, why, m.given[h])
		}
	}
}

// checkStep checks the ledger after a step: its invariant holds and it
// has counted the late results the model has.
func (m *ledgerModel) checkStep(step int) {
	m.t.Helper()
	m.l.check()
	if m.l.lateResults != m.late {
		m.t.Fatalf("step %d: %d late results counted, want %d", step, m.l.lateResults, m.late)
	}
}

// openTasks are the tasks of the ledger's open loans.
func (m *ledgerModel) openTasks() map[*sched.Header]bool {
	open := map[*sched.Header]bool{}
	for _, lo := range m.l.open {
		open[lo.h] = true
	}
	return open
}

// checkGivenOnce checks, once the job has ended, that every task lent was
// given back exactly once, but those pending, which never were.
func (m *ledgerModel) checkGivenOnce(pending map[*sched.Header]bool) {
	m.t.Helper()
	for id, lt := range m.lent {
		switch {
		case pending[lt.h] && m.given[lt.h] != 0:
			m.t.Fatalf("loan %d was still to settle at the end, and its task was given back", id)
		case !pending[lt.h] && m.given[lt.h] != 1:
			m.t.Fatalf("loan %d settled, and its task was given back %d times", id, m.given[lt.h])
		}
	}
}
