package returns

import (
	"cmp"
	"slices"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// The defaults of Params.
const (
	// DefaultHold is long enough for a batch of small tasks to finish
	// together, and short beside the round trip of a request on a LAN
	// plus the work a lender waits for.
	DefaultHold = 500 * time.Microsecond
	// DefaultMaxResults bounds a message's results: beyond it the
	// message's cost is its bytes, not its count.
	DefaultMaxResults = 64
)

// Params tunes a Batcher. A zero field takes its default.
type Params struct {
	// Hold is the longest a result waits for others to the same lender
	// (default DefaultHold); negative: no result waits, each goes alone.
	Hold time.Duration
	// MaxResults is the most results sent together (default
	// DefaultMaxResults).
	MaxResults int
}

func (p Params) withDefaults() Params {
	if p.Hold == 0 {
		p.Hold = DefaultHold
	}
	if p.MaxResults <= 0 {
		p.MaxResults = DefaultMaxResults
	}
	return p
}

// Batch is the results to send to Lender now, in one message, in the
// order their tasks finished.
type Batch[R any] struct {
	Lender  clusterpolicy.NodeID
	Results []R
}

// Batcher holds the results of borrowed tasks, R being whatever its
// driver sends for one (the simulator's group, the engine's message).
type Batcher[R any] struct {
	p       Params
	lenders map[clusterpolicy.NodeID]*lender[R]
	held    int // results held, over every lender
}

// lender is what this node holds of one lender's: the tasks borrowed
// from it and not finished, and the results waiting, the first since
// first.
type lender[R any] struct {
	pending int
	results []R
	first   time.Time
}

// New makes a Batcher.
func New[R any](p Params) *Batcher[R] {
	return &Batcher[R]{p: p.withDefaults(), lenders: map[clusterpolicy.NodeID]*lender[R]{}}
}

// Held is how many results wait.
func (b *Batcher[R]) Held() int { return b.held }

func (b *Batcher[R]) of(id clusterpolicy.NodeID) *lender[R] {
	l := b.lenders[id]
	if l == nil {
		l = &lender[R]{}
		b.lenders[id] = l
	}
	return l
}

// Borrowed: n tasks borrowed from id arrived here.
func (b *Batcher[R]) Borrowed(id clusterpolicy.NodeID, n int) {
	if n > 0 {
		b.of(id).pending += n
	}
}

// Dropped: n tasks borrowed from id will send no result through the
// Batcher (handed back unstarted, refused, their job over here).
func (b *Batcher[R]) Dropped(id clusterpolicy.NodeID, n int) {
	if l := b.lenders[id]; l != nil {
		l.pending = max(0, l.pending-n)
		b.tidy(id, l)
	}
}

// Done: a task borrowed from id, which arrived here at arrived, finished
// at now with result r. The answer is the batch to send now, if any:
// id's results, once none of its tasks runs here any more, MaxResults
// wait, or this one's task was here longer than Hold. A task that long
// is worth its message, and its lender may wait for it: its result goes
// at once, and those held for the same lender go with it. (Its time here
// from its arrival, not from its start, which only the node's workers
// know: a small task that waited behind a long one goes at once too.)
func (b *Batcher[R]) Done(now time.Time, id clusterpolicy.NodeID, r R, arrived time.Time) []Batch[R] {
	l := b.of(id)
	l.pending = max(0, l.pending-1)
	if b.p.Hold < 0 {
		b.tidy(id, l)
		return []Batch[R]{{Lender: id, Results: []R{r}}}
	}
	if len(l.results) == 0 {
		l.first = now
	}
	l.results = append(l.results, r)
	b.held++
	if l.pending == 0 || len(l.results) >= b.p.MaxResults || now.Sub(arrived) > b.p.Hold {
		return []Batch[R]{b.take(id, l)}
	}
	return nil
}

// Idle: the node has no work left to run at now; every result goes.
func (b *Batcher[R]) Idle(time.Time) []Batch[R] {
	return b.flush(func(*lender[R]) bool { return true })
}

// Due sends the results that have waited Hold at now.
func (b *Batcher[R]) Due(now time.Time) []Batch[R] {
	return b.flush(func(l *lender[R]) bool { return !now.Before(l.first.Add(b.p.Hold)) })
}

// Next is when Due has results to send, if any wait.
func (b *Batcher[R]) Next() (time.Time, bool) {
	var at time.Time
	found := false
	for _, l := range b.lenders {
		if len(l.results) > 0 && (!found || l.first.Before(at)) {
			at, found = l.first, true
		}
	}
	return at.Add(b.p.Hold), found
}

// Forget drops everything held for id: it left or died, and its tasks'
// results are sent no more (its borrowers' results to a dead lender are
// lost anyway; the driver says which it sends regardless).
func (b *Batcher[R]) Forget(id clusterpolicy.NodeID) []R {
	l := b.lenders[id]
	if l == nil {
		return nil
	}
	delete(b.lenders, id)
	b.held -= len(l.results)
	return l.results
}

// flush takes the results of every lender that send says.
func (b *Batcher[R]) flush(send func(*lender[R]) bool) []Batch[R] {
	if b.held == 0 {
		return nil
	}
	var out []Batch[R]
	for id, l := range b.lenders {
		if len(l.results) > 0 && send(l) {
			out = append(out, b.take(id, l))
		}
	}
	// In a fixed order, not a map's: the simulator repeats exactly.
	sortBatches(out)
	return out
}

// take removes id's held results as a batch.
func (b *Batcher[R]) take(id clusterpolicy.NodeID, l *lender[R]) Batch[R] {
	out := Batch[R]{Lender: id, Results: l.results}
	b.held -= len(l.results)
	l.results = nil
	b.tidy(id, l)
	return out
}

// tidy forgets a lender with nothing here.
func (b *Batcher[R]) tidy(id clusterpolicy.NodeID, l *lender[R]) {
	if l.pending == 0 && len(l.results) == 0 {
		delete(b.lenders, id)
	}
}

// sortBatches orders batches by lender.
func sortBatches[R any](bs []Batch[R]) {
	slices.SortFunc(bs, func(a, b Batch[R]) int { return cmp.Compare(a.Lender, b.Lender) })
}
