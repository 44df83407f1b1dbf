package cluster

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/returns"
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
	// at is when the task arrived, from which the book's Batcher tells a
	// coarse task's result, sent at once, from a small one's, which may
	// wait (package returns).
	at time.Time
}

// borrowBook is the borrowed tasks of one job on this node, each with its
// loan: the borrower's side of the ledger.
//
// The rule: a task stays in the book until its result, or the task handed
// back, is on its way to the lender (Return, handBack). A result that
// waits for others to the same lender (package returns, whose Batcher the
// book drives) is on its way only once its batch is sent. A lender's query
// (onLoanQuery) is answered from the book, so an answer never says a task
// is gone before what settles its loan went ahead of that answer on the
// same connection. Every task of a job served here descends from a
// borrowed one, so an empty book means the node holds nothing of the job.
//
// Safe for concurrent use; its lock is a leaf.
type borrowBook struct {
	params  returns.Params
	mu      sync.Mutex
	loans   map[*sched.Header]loan
	returns *returns.Batcher[heldResult]
	// waiting mirrors returns.Held(), for a worker's Hungry to read
	// without the lock.
	waiting atomic.Int32
}

// heldResult is a result the book's Batcher holds: the task's, its loan,
// and the message that says it.
type heldResult struct {
	h *sched.Header
	l loan
	m *result
}

func newBorrowBook(p returns.Params) *borrowBook {
	return &borrowBook{params: p, loans: map[*sched.Header]loan{}, returns: returns.New[heldResult](p)}
}

// add records borrowed task h and its loan.
func (b *borrowBook) add(h *sched.Header, l loan) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.loans[h] = l
	b.returns.Borrowed(l.node, 1)
}

// done takes the result m of borrowed task h, finished at now, and
// returns the results to send now, a batch to a lender each; ok is false
// when h is not held (its job is over here). What they settle stays in
// the book until sent (sent).
func (b *borrowBook) done(now time.Time, h *sched.Header, m *result) (bs []returns.Batch[heldResult], ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.loans[h]
	if !ok {
		return nil, false
	}
	bs = b.returns.Done(now, l.node, heldResult{h: h, l: l, m: m}, l.at)
	b.waiting.Store(int32(b.returns.Held()))
	return bs, true
}

// idle returns every result held: the node has run out of work.
func (b *borrowBook) idle(now time.Time) []returns.Batch[heldResult] {
	if b.waiting.Load() == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	bs := b.returns.Idle(now)
	b.waiting.Store(int32(b.returns.Held()))
	return bs
}

// due returns the results that have waited long enough at now.
func (b *borrowBook) due(now time.Time) []returns.Batch[heldResult] {
	b.mu.Lock()
	defer b.mu.Unlock()
	bs := b.returns.Due(now)
	b.waiting.Store(int32(b.returns.Held()))
	return bs
}

// next is when the next results held are due, if any are held.
func (b *borrowBook) next() (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.returns.Next()
}

// sent drops the tasks of a batch sent.
func (b *borrowBook) sent(batch returns.Batch[heldResult]) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range batch.Results {
		delete(b.loans, r.h)
	}
}

// loanOf is h's loan, if h is a borrowed task still held.
func (b *borrowBook) loanOf(h *sched.Header) (loan, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.loans[h]
	return l, ok
}

// settled drops h, handed back unstarted: the task is on its way back.
func (b *borrowBook) settled(h *sched.Header) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l, ok := b.loans[h]; ok {
		b.returns.Dropped(l.node, 1)
		delete(b.loans, h)
	}
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

// clear empties the book: the job's run is over here, and no result it
// held is wanted.
func (b *borrowBook) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.loans)
	b.returns = returns.New[heldResult](b.params)
	b.waiting.Store(0)
}
