package cluster

import (
	"slices"
	"strings"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Link is what a node borrowed from one peer during a job, and how long
// its requests for work to that peer waited for their answers: a cell of
// the dashboard's matrix of who lent to whom. The borrower counts it, as
// it alone sees both ends of a request's round trip.
type Link struct {
	From    string `json:"from"`
	Tasks   int64  `json:"tasks"`   // tasks borrowed from it
	Answers int64  `json:"answers"` // answers to this node's requests for work, with tasks or without
	WaitNs  int64  `json:"wait_ns"` // time from each request to its answer, summed
}

// linkBook is an engine's links, by lender. Guarded by the engine's mu,
// which borrow holds already: a map write per answer, not per task.
type linkBook struct {
	m map[clusterpolicy.NodeID]*Link
}

// answered counts a reply from a lender with tasks, that answered a
// request sent wait ago when timed (a reply may come unasked).
func (b *linkBook) answered(from clusterpolicy.NodeID, tasks int, wait time.Duration, timed bool) {
	if b.m == nil {
		b.m = map[clusterpolicy.NodeID]*Link{}
	}
	l := b.m[from]
	if l == nil {
		l = &Link{From: string(from)}
		b.m[from] = l
	}
	l.Tasks += int64(tasks)
	if timed {
		l.Answers++
		l.WaitNs += int64(wait)
	}
}

// list copies the links, by lender's name.
func (b *linkBook) list() []Link {
	out := make([]Link, 0, len(b.m))
	for _, l := range b.m {
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b Link) int { return strings.Compare(a.From, b.From) })
	return out
}
