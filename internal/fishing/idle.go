package fishing

import (
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// A node serving a job whose work is all elsewhere. Its workers wait, and
// nothing here changes until a peer answers, asks or reports: so the
// policy tells its engine when it next needs the time (NextDue), and the
// engine stops the node's tick until then rather than ticking a policy
// that has nothing to do. The node still fishes after each backoff, and
// with IdleBackoff the backoff towards a peer that keeps refusing grows
// on while every worker waits, so that such a node asks a few times a
// second rather than fifty. Either way the cost of waiting is the issue's
// "idle node" target (bench/README.md, "An idle node").

// NextDue implements clusterpolicy.Sleeper: the earliest of the oldest
// deferred request's expiry, a request's reply timeout and the end of the
// demand hold (which changes the Advice's Expose). A node whose workers
// all wait is hungry, so the end of the first backoff that frees a peer
// to ask is due too. A node whose workers are all at work fishes only
// once one runs dry, which is an event (Hungry), unless it asks ahead of
// need: then its ready tasks falling below the mark, which no event
// tells, is due at every tick.
func (s *Policy) NextDue(now time.Time, self clusterpolicy.Load) time.Time {
	if self.AtWork() && s.p.LowWater > 0 {
		return now
	}
	due := s.lender.due()
	for _, pr := range s.peers {
		if pr.inFlight {
			due = earlier(due, pr.sentAt.Add(s.p.ReplyTimeout))
		}
	}
	due = earlier(due, s.demand.due(now))
	if !self.AtWork() {
		due = earlier(due, s.hungryAfter(now))
	}
	if due.Before(now) {
		return now
	}
	return due
}

// earlier is the earlier of a and b.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
