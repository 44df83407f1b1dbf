package fishing

import (
	"hash/fnv"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/xorshift"
)

// Policy is the fishing scheduler of one node. It implements clusterpolicy.Policy:
// a state machine fed events with their time, one at a time, by its engine.
//
// It keeps the node's peers and the requests in flight to them (peers.go),
// and hands each other concern to a part of its own: whether the node
// wants work (hunger), whom it asks (victims), how many at once
// (inFlightLimit), whom it leaves alone for a while (backoffs), when it
// stops asking at random and waits on its lifelines (lifelines), what it
// lends and holds for whom (lender), and how many tasks it keeps
// stealable (demand).
type Policy struct {
	self clusterpolicy.NodeID
	zone string
	p    Params
	name string

	hunger   hunger        // hunger.go
	victims  victims       // victims.go
	limit    inFlightLimit // inflight.go
	backoffs backoffs      // backoff.go
	lifeline lifelines     // lifeline.go
	lender   lender        // lender.go, deferred.go, lifeline.go
	demand   demand        // demand.go

	peers  []*peer
	index  map[clusterpolicy.NodeID]int // position in peers
	flying int                          // requests in flight
	cross  int                          // ... of them to another zone
	// prefetching counts the requests in flight sent ahead of need
	// (prefetch.go).
	prefetching int

	// lastIn is how many tasks the last answer with tasks brought: the
	// node asks again when half of them are left (Advice.Reserve).
	lastIn int
	advice clusterpolicy.Advice
	stats  Stats
}

// New makes the fishing policy of node self, of the given zone. Zero fields
// of p take their defaults.
func New(self clusterpolicy.NodeID, zone string, p Params) *Policy {
	p = p.withDefaults()
	h := fnv.New64a()
	h.Write([]byte(self))
	s := &Policy{
		self:     self,
		zone:     zone,
		p:        p,
		name:     "fishing:" + p.Victim.String(),
		hunger:   hunger{lowWater: p.LowWater},
		victims:  victims{rule: p.Victim, rng: xorshift.Seed(h.Sum64())},
		limit:    inFlightLimit{fixed: p.MaxInFlight, lifelines: p.Lifelines, answered: 1},
		backoffs: backoffs{retry: p.RetryBackoff, most: p.MaxBackoff, idleMax: p.IdleBackoff},
		lifeline: lifelines{after: p.Lifelines},
		lender:   lender{p: p, half: halfFor(p.Lend, 0), askers: make(map[clusterpolicy.NodeID]*asker)},
		demand:   demand{hold: p.DemandHold, expose: p.Expose},
		index:    make(map[clusterpolicy.NodeID]int),
	}
	s.lender.stats = &s.stats
	s.advice.HungryAfter = clusterpolicy.Never // no peer yet
	return s
}

// Params reports the parameters in use, defaults filled in.
func (s *Policy) Params() Params { return s.p }

// Name implements clusterpolicy.Policy: "fishing:random", "fishing:load" or
// "fishing:zone".
func (s *Policy) Name() string { return s.name }

// Advice implements clusterpolicy.Policy.
func (s *Policy) Advice() clusterpolicy.Advice { return s.advice }

// Hungry implements clusterpolicy.Policy: the node becomes hungry, fills its free
// request slots, and holds demand (demand.go).
func (s *Policy) Hungry(now time.Time) []clusterpolicy.Action {
	if s.hunger.starve() {
		s.ranDry()
	}
	s.demand.holdFrom(now)
	defer s.settle(now)
	return s.refill(now)
}

// StealRequest implements clusterpolicy.Policy: lend min(want, the peer's batch,
// ceil(ready/2)) tasks; with fewer than MinReady ready, hold the request for
// the next push (for at most DeferFor), or refuse when DeferFor < 0 or when
// the node is waiting (self.Waiting): no worker of it is at work to push a
// task, so holding the request would only keep the asker from a peer that
// has some (lender.go). Either way the request shows that a peer wants
// work: for DemandHold the node keeps Expose (and at least 8 batches) more
// tasks stealable (demand.go).
func (s *Policy) StealRequest(now time.Time, from clusterpolicy.NodeID, want int, self clusterpolicy.Load) clusterpolicy.Action {
	a, batch := s.lender.request(now, from, want, self)
	s.demand.asked(now, batch)
	s.settle(now)
	return a
}

// Pushed implements clusterpolicy.Policy: answer the deferred requests, oldest
// first, from what is ready now (NewTS's deferred answer: the next task
// spawned goes to the node that asked; deferred.go).
func (s *Policy) Pushed(now time.Time, ready int) []clusterpolicy.Action {
	as := s.lender.pushed(now, ready)
	s.settle(now)
	return as
}

// StealReply implements clusterpolicy.Policy. It frees the slot of the request to
// from; n == 0 starts or doubles from's backoff, n > 0 resets it. After a
// refusal a hungry node asks another eligible peer at once, or, after
// Lifelines of them in a row, waits on its lifelines; an answer to a
// lifeline ends it (lifeline.go).
func (s *Policy) StealReply(now time.Time, from clusterpolicy.NodeID, n int) []clusterpolicy.Action {
	if n > 0 {
		s.stats.Successes++
		s.stats.TasksIn += int64(n)
		s.hunger.fed()
		s.lifeline.fed()
		s.backoffs.setIdle(false, s.peers)
		s.lastIn = n
		s.demand.holdFrom(now)
		defer s.settle(now)
	} else {
		s.stats.Refusals++
	}
	if i, ok := s.index[from]; ok {
		pr := s.peers[i]
		request := pr.inFlight
		if request {
			s.limit.heard(n > 0)
		}
		if n > 0 {
			s.hunger.topped()
			if pr.prefetch {
				s.stats.Prefetched += int64(n)
			}
		}
		s.land(pr)
		if n > 0 {
			s.backoffs.reset(pr)
		} else {
			s.backoffs.refused(pr, now)
			// A refusal is a fresher load report than any gossip.
			pr.ready, pr.reported = 0, true
		}
		switch {
		case !request && pr.lifeline:
			s.lifeline.answered(pr, n)
		case request && n == 0:
			s.lifeline.refused(s.hunger.hungry && s.limit.starved(), len(s.peers))
		}
	}
	return s.refill(now)
}

// LoadReport implements clusterpolicy.Policy: remember l.Ready for Load victims.
func (s *Policy) LoadReport(now time.Time, from clusterpolicy.NodeID, l clusterpolicy.Load) []clusterpolicy.Action {
	i, ok := s.index[from]
	if !ok {
		return nil
	}
	pr := s.peers[i]
	pr.ready, pr.reported = l.Ready, true
	if l.Ready > 0 {
		s.backoffs.shorten(pr) // it has work to lend now
	}
	return s.refill(now)
}

// JobStarted implements clusterpolicy.Policy: every node of a fresh job wants work,
// so the first splits keep their big pieces stealable (demand.go).
func (s *Policy) JobStarted(now time.Time) []clusterpolicy.Action {
	s.demand.holdFrom(now)
	s.settle(now)
	return nil
}

// Membership implements clusterpolicy.Policy: a joining node becomes a peer, a
// departed one is forgotten along with any request in flight to it, and
// one that drains (Leaving) stays a victim: it still lends what it holds.
func (s *Policy) Membership(now time.Time, ev clusterpolicy.MemberEvent) []clusterpolicy.Action {
	if ev.Node == s.self || ev.Leaving {
		// A draining node is still worth asking: it lends what it holds,
		// and Fishing never gives a peer work it did not ask for.
		return nil
	}
	i, known := s.index[ev.Node]
	switch {
	case ev.Joined && known:
		pr := s.peers[i]
		if pr.inFlight && !pr.same {
			s.cross--
		}
		pr.zone, pr.same = ev.Zone, ev.Zone == s.zone
		if pr.inFlight && !pr.same {
			s.cross++
		}
	case ev.Joined:
		s.demand.holdFrom(now)
		s.lifeline.changed()
		defer s.settle(now)
		s.index[ev.Node] = len(s.peers)
		s.peers = append(s.peers, &peer{id: ev.Node, zone: ev.Zone, same: ev.Zone == s.zone})
	case known:
		s.lender.leave(ev.Node)
		pr := s.peers[i]
		s.lifeline.gone(pr)
		if pr.inFlight {
			s.land(pr)
			s.stats.Dropped++
		}
		last := len(s.peers) - 1
		s.peers[i] = s.peers[last]
		s.index[s.peers[i].id] = i
		s.peers[last] = nil
		s.peers = s.peers[:last]
		delete(s.index, ev.Node)
	}
	s.lender.half = halfFor(s.p.Lend, len(s.peers))
	return s.refill(now)
}

// Tick implements clusterpolicy.Policy: requests unanswered for ReplyTimeout are
// forgotten (counting as refusals), deferred requests held for DeferFor
// are refused, self updates whether the node is hungry, and a hungry node
// fills its free request slots.
func (s *Policy) Tick(now time.Time, self clusterpolicy.Load) []clusterpolicy.Action {
	refusals := s.lender.expire(now)
	for _, pr := range s.peers {
		if pr.inFlight && now.Sub(pr.sentAt) >= s.p.ReplyTimeout {
			s.land(pr)
			s.backoffs.refused(pr, now)
			s.stats.Timeouts++
			s.lifeline.refused(s.hunger.hungry && s.limit.starved(), len(s.peers))
		}
	}
	if self.Workers > 0 {
		// A prefetch in flight did not keep the node from running dry.
		if s.hunger.read(self) {
			s.ranDry()
		}
		if !s.hunger.hungry {
			s.lifeline.fed() // it has work
		}
		s.backoffs.setIdle(self.Waiting(), s.peers)
	}
	return append(refusals, s.refill(now)...)
}

// refill sends requests while the node wants work, a slot is free and a
// peer is eligible, or lifelines while it is quiet, and settles the
// advice.
func (s *Policy) refill(now time.Time) []clusterpolicy.Action {
	var as []clusterpolicy.Action
	if s.lifeline.quiet {
		as = s.waitOn(as)
	} else if s.hunger.wants() {
		for most := s.limit.most(len(s.peers)); s.flying < most; {
			pr := s.victims.choose(now, s.peers, s.flying, s.cross)
			if pr == nil {
				break
			}
			as = append(as, s.send(pr, now))
		}
	}
	s.settle(now)
	return as
}

// settle recomputes the advice after an event at now.
func (s *Policy) settle(now time.Time) {
	s.advice.Expose = s.demand.exposeAt(now)
	s.advice.HungryAfter = s.hungryAfter(now)
	s.advice.Reserve = max(s.lastIn/2, s.p.LowWater)
	s.advice.Deferred = s.lender.held()
}

// hungryAfter is the earliest time a Hungry event could send a request.
func (s *Policy) hungryAfter(now time.Time) time.Time {
	if s.lifeline.quiet {
		if s.unsent() {
			return time.Time{}
		}
		return clusterpolicy.Never // only an answer or a member event can end the wait
	}
	if s.flying >= s.limit.most(len(s.peers)) || len(s.peers) == 0 {
		return clusterpolicy.Never
	}
	if len(s.victims.candidates(now, s.peers, s.flying, s.cross)) > 0 {
		return time.Time{}
	}
	// Only a backoff running out can make a candidate without an event;
	// the earliest one is a safe time to look again.
	next := clusterpolicy.Never
	for _, pr := range s.peers {
		if !pr.inFlight && pr.until.After(now) && pr.until.Before(next) {
			next = pr.until
		}
	}
	return next
}
