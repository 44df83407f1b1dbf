package fishing

import (
	"slices"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Deferred answers (NewTS's; doc.go, "The algorithm"): a request that
// finds nothing to lend waits for the node's next push, for at most
// DeferFor, and is refused then. The lender keeps the requests held,
// oldest first, at most one per peer.

// deferredRequest is a request answered later (Defer).
type deferredRequest struct {
	from clusterpolicy.NodeID
	want int
	at   time.Time
}

// hold defers the request of want tasks that from sent at now.
func (l *lender) hold(now time.Time, from clusterpolicy.NodeID, want int) clusterpolicy.Action {
	l.forget(from) // a peer asks again only once its last request is over
	l.deferred = append(l.deferred, deferredRequest{from: from, want: want, at: now})
	l.stats.Deferred++
	return clusterpolicy.Action{Kind: clusterpolicy.Defer, Node: from}
}

// pushed answers the deferred requests, oldest first, from the ready
// tasks the node holds after a push, then the lifelines held
// (lifeline.go) from those left.
func (l *lender) pushed(now time.Time, ready int) []clusterpolicy.Action {
	var as []clusterpolicy.Action
	// One budget for them all: the node never lends more than it would
	// to a single request.
	budget := lend(ready, l.p.MaxTasksPerAnswer, l.p)
	for len(l.deferred) > 0 && budget > 0 {
		d := l.deferred[0]
		batch := l.p.TasksPerAnswer
		if a := l.askers[d.from]; a != nil {
			batch = l.batch(a, d.want)
		} else if l.half {
			batch = d.want
		}
		n := min(budget, d.want, batch)
		as = append(as, l.give(now, d.from, n))
		budget -= n
		ready -= n
		l.deferred = l.deferred[1:]
	}
	if len(l.waiting) > 0 {
		as = l.answerLifelines(now, ready, as)
	}
	return as
}

// forget drops a deferred request of from, if any.
func (l *lender) forget(from clusterpolicy.NodeID) {
	l.deferred = slices.DeleteFunc(l.deferred, func(d deferredRequest) bool { return d.from == from })
}

// expire refuses the deferred requests held for DeferFor: the asker may
// find work elsewhere.
func (l *lender) expire(now time.Time) []clusterpolicy.Action {
	var as []clusterpolicy.Action
	for len(l.deferred) > 0 && now.Sub(l.deferred[0].at) >= l.p.DeferFor {
		as = append(as, clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: l.deferred[0].from})
		l.stats.Refused++
		l.deferred = l.deferred[1:]
	}
	return as
}

// held is how many requests are deferred, lifelines included
// (Advice.Deferred).
func (l *lender) held() int { return len(l.deferred) + len(l.waiting) }

// due is when the oldest deferred request expires, or Never.
func (l *lender) due() time.Time {
	if len(l.deferred) == 0 {
		return clusterpolicy.Never
	}
	return l.deferred[0].at.Add(l.p.DeferFor)
}
