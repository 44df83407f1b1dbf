package fishing

import (
	"slices"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// lender answers the peers that ask this node for work (doc.go, "The
// algorithm"): it lends min(batch, ceil(ready/2)) of the node's oldest
// ready tasks, the batch kept per asker and adapted to how soon it comes
// back, or when it lends half (Params.Lend) up to half of what is ready; with fewer than
// MinReady ready it holds the request for the next push (deferred.go) or
// refuses. It holds lifelines until it has tasks to give (lifeline.go).
type lender struct {
	p        Params
	half     bool // lend half of what is ready (Params.Lend, halfFor)
	askers   map[clusterpolicy.NodeID]*asker
	deferred []deferredRequest // oldest first, at most one per peer
	waiting  []deferredRequest // lifelines held, oldest first, at most one per peer
	stats    *Stats            // the policy's: Lent, TasksOut, Refused, Deferred, Held, Pushes
}

// asker is what a lender keeps of a peer that asks it for work.
type asker struct {
	batch    int
	lastGive time.Time
}

// adapt sizes the batch for a request at now: doubled when the last batch
// came back quickly, halved when the peer stayed away.
func (a *asker) adapt(now time.Time, p Params) {
	if a.lastGive.IsZero() {
		return
	}
	switch since := now.Sub(a.lastGive); {
	case since < p.QuickReturn:
		a.batch = min(2*a.batch, p.MaxTasksPerAnswer)
	case since > 4*p.QuickReturn:
		a.batch = max(a.batch/2, p.TasksPerAnswer)
	}
}

// request answers a request of want tasks that from sent at now, self
// being the node's load, as StealRequest says. It returns the answer and
// the asker's batch, which sizes the demand the request shows.
func (l *lender) request(now time.Time, from clusterpolicy.NodeID, want int, self clusterpolicy.Load) (clusterpolicy.Action, int) {
	a := l.askerOf(from)
	a.adapt(now, l.p)
	want = max(want, 1)
	if n := min(lend(self.Ready, l.batch(a, want), l.p), want); n > 0 {
		return l.give(now, from, n), a.batch
	}
	if l.p.DeferFor > 0 && !self.Waiting() {
		return l.hold(now, from, want), a.batch
	}
	l.stats.Refused++
	return clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: from}, a.batch
}

// askerOf is what the lender keeps of from, made at its first request.
func (l *lender) askerOf(from clusterpolicy.NodeID) *asker {
	a := l.askers[from]
	if a == nil {
		a = &asker{batch: l.p.TasksPerAnswer}
		l.askers[from] = a
	}
	return a
}

// give counts n tasks lent to from.
func (l *lender) give(now time.Time, from clusterpolicy.NodeID, n int) clusterpolicy.Action {
	if a := l.askers[from]; a != nil {
		a.lastGive = now
	}
	l.stats.Lent++
	l.stats.TasksOut += int64(n)
	return clusterpolicy.Action{Kind: clusterpolicy.Give, Node: from, Count: n}
}

// batch is the most a request of want tasks from asker a may be lent:
// a's adaptive batch, or lending half the whole of want (lend then takes
// at most half of what is ready).
func (l *lender) batch(a *asker, want int) int {
	if l.half {
		return want
	}
	return a.batch
}

// halfFor says whether a node among peers other nodes lends half of what
// is ready, for Params.Lend mode.
func halfFor(mode Lending, peers int) bool {
	switch mode {
	case LendHalf:
		return true
	case LendAuto:
		return peers+1 >= autoHalfFrom
	}
	return false
}

// Steal-half by default on clusters of 16 nodes or more. With the results
// of a lender's tasks going home together (package returns), a larger
// batch costs a request, its answer and one result message whatever its
// size, and on many nodes half of what is ready keeps a thief, and those
// that steal from it, busy for longer than the adaptive batch does.
// Below, the adaptive batch is as fast (bench/README.md, "Messages at
// scale", has the runs).
const autoHalfFrom = 16

// leave forgets a peer that left the cluster: its batch, and its request
// and lifeline held, if any.
func (l *lender) leave(id clusterpolicy.NodeID) {
	l.forget(id)
	l.waiting = slices.DeleteFunc(l.waiting, func(d deferredRequest) bool { return d.from == id })
	delete(l.askers, id)
}

// lend is how many of ready tasks a node lends in a batch of at most
// batch under p.
func lend(ready, batch int, p Params) int {
	if ready < p.MinReady || ready < 1 {
		return 0
	}
	return min(batch, (ready+1)/2)
}
