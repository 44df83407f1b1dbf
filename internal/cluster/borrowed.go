package cluster

import (
	"maps"
	"sync"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/sched"
)

// loan is what a borrower keeps of a borrowed task: where its result goes.
type loan struct {
	node clusterpolicy.NodeID
	id   uint64
	// addr is where the lender asked for answers (its stealReply's
	// ReplyTo): its result, or the task handed back, goes there when
	// gossip no longer lists the lender. A lender gossip suspects may
	// well be alive, waiting for it.
	addr string
}

// borrowBook is the borrowed tasks of one job on this node, each with its
// loan: the borrower's side of the ledger.
//
// The rule: a task stays in the book until its result, or the task handed
// back, is on its way to the lender (Return, handBack). A lender's query
// (onLoanQuery) is answered from the book, so an answer never says a task
// is gone before what settles its loan went ahead of that answer on the
// same connection. Every task of a job served here descends from a
// borrowed one, so an empty book means the node holds nothing of the job.
//
// Safe for concurrent use; its lock is a leaf.
type borrowBook struct {
	mu    sync.Mutex
	loans map[*sched.Header]loan
}

func newBorrowBook() *borrowBook { return &borrowBook{loans: map[*sched.Header]loan{}} }

// add records borrowed task h and its loan.
func (b *borrowBook) add(h *sched.Header, l loan) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.loans[h] = l
}

// loanOf is h's loan, if h is a borrowed task still held.
func (b *borrowBook) loanOf(h *sched.Header) (loan, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.loans[h]
	return l, ok
}

// settled drops h: what settles its loan is on its way.
func (b *borrowBook) settled(h *sched.Header) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.loans, h)
}

// held is a copy of the book.
func (b *borrowBook) held() map[*sched.Header]loan {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.loans)
}

// heldFrom is the ids of the loans of lender node the book holds.
func (b *borrowBook) heldFrom(node clusterpolicy.NodeID) map[uint64]bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	ids := map[uint64]bool{}
	for _, l := range b.loans {
		if l.node == node {
			ids[l.id] = true
		}
	}
	return ids
}

// len is how many borrowed tasks are held.
func (b *borrowBook) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.loans)
}

// clear empties the book: the job's run is over here.
func (b *borrowBook) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.loans)
}
