package fishing

import (
	"hash/fnv"
	"slices"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/xorshift"
)

// Policy is the fishing scheduler of one node. It implements clusterpolicy.Policy:
// a state machine fed events with their time, one at a time, by its engine.
type Policy struct {
	self clusterpolicy.NodeID
	zone string
	p    Params
	name string

	// hungry: a worker ran out of work at home and nothing since says the
	// node has work again. While hungry, events that free a slot or a
	// peer send new requests themselves, so a node whose workers all
	// parked keeps fishing.
	hungry bool
	// low: every worker is at work and fewer than LowWater tasks are
	// ready; the node fishes ahead of need (prefetch.go).
	low bool
	// prefetching counts the requests in flight sent while low.
	prefetching int
	// demandUntil: a peer asked for work recently; until then the node
	// keeps Params.Expose more tasks stealable.
	demandUntil time.Time
	advice      clusterpolicy.Advice
	// deferred are requests held for the next push, oldest first, at most
	// one per peer.
	deferred []deferredRequest
	// askers is what the node knows of the peers that ask it for work:
	// the batch each is lent.
	askers map[clusterpolicy.NodeID]*asker
	// demandBatch is the batch of the last request: Expose keeps room for
	// a few of them.
	demandBatch int
	// answered is the share of recent answers that brought tasks, a
	// moving average (inflight.go).
	answered float64
	// lastIn is how many tasks the last answer with tasks brought: the
	// node asks again when half of them are left (Advice.Reserve).
	lastIn int
	// idle: the last Tick found every worker waiting and nothing ready,
	// and no task came since; backoffs may grow to IdleBackoff (idle.go).
	idle bool

	peers   []*peer
	index   map[clusterpolicy.NodeID]int // position in peers
	flying  int                          // requests in flight
	cross   int                          // ... of them to another zone
	rng     xorshift.State
	scratch []*peer
	other   []*peer
	stats   Stats
}

// peer is what the policy knows of another node.
type peer struct {
	id        clusterpolicy.NodeID
	zone      string
	same      bool // same zone as this node
	ready     int  // Ready of its last load report
	reported  bool // a load report (or a refusal) was heard
	backoff   time.Duration
	refusedAt time.Time // its last refusal (or timeout)
	until     time.Time // not asked before this
	inFlight  bool
	sentAt    time.Time
	prefetch  bool // the request in flight went out ahead of need
	dry       bool // ... and a worker ran dry before its answer
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

// deferredRequest is a request answered later (Defer).
type deferredRequest struct {
	from clusterpolicy.NodeID
	want int
	at   time.Time
}

// Stats counts what a policy did.
type Stats struct {
	Requests  int64 // fishing requests sent (Fish actions)
	Successes int64 // replies that brought tasks
	Refusals  int64 // replies that brought none
	Timeouts  int64 // requests forgotten unanswered
	Dropped   int64 // requests dropped because the peer left
	TasksIn   int64 // tasks received
	Lent      int64 // requests answered with Give
	TasksOut  int64 // tasks promised in those answers
	Refused   int64 // requests answered with Refuse
	Deferred  int64 // requests answered with Defer
	// Prefetches are the requests sent ahead of need (LowWater),
	// Prefetched the tasks their answers brought, and RanDry those of
	// them still in flight when a worker ran out of work anyway.
	Prefetches int64
	Prefetched int64
	RanDry     int64
	InFlight   int // requests in flight now
}

// New makes the fishing policy of node self, of the given zone. Zero fields
// of p take their defaults.
func New(self clusterpolicy.NodeID, zone string, p Params) *Policy {
	p = p.withDefaults()
	h := fnv.New64a()
	h.Write([]byte(self))
	s := &Policy{
		self:   self,
		zone:   zone,
		p:      p,
		name:   "fishing:" + p.Victim.String(),
		index:  make(map[clusterpolicy.NodeID]int),
		askers: make(map[clusterpolicy.NodeID]*asker),
		rng:    xorshift.Seed(h.Sum64()),
		// Until answers say otherwise, peers have work.
		answered: 1,
	}
	s.advice.HungryAfter = clusterpolicy.Never // no peer yet
	return s
}

// Params reports the parameters in use, defaults filled in.
func (s *Policy) Params() Params { return s.p }

// Stats reports the policy's counters. Like every method, it is called by
// the engine between events.
func (s *Policy) Stats() Stats {
	st := s.stats
	st.InFlight = s.flying
	return st
}

// Name implements clusterpolicy.Policy: "fishing:random", "fishing:load" or
// "fishing:zone".
func (s *Policy) Name() string { return s.name }

// Advice implements clusterpolicy.Policy.
func (s *Policy) Advice() clusterpolicy.Advice { return s.advice }

// Hungry implements clusterpolicy.Policy: the node becomes hungry, fills its free
// request slots, and holds demand (holdDemand).
func (s *Policy) Hungry(now time.Time) []clusterpolicy.Action {
	if !s.hungry {
		s.ranDry()
	}
	s.hungry = true
	s.holdDemand(now)
	defer s.settle(now)
	return s.refill(now)
}

// StealRequest implements clusterpolicy.Policy: lend min(want, the peer's batch,
// ceil(ready/2)) tasks; with fewer than MinReady ready, hold the request for
// the next push (for at most DeferFor), or refuse when DeferFor < 0 or when
// the node is waiting (self.Waiting): no worker of it is at work to push a
// task, so holding the request would only keep the asker from a peer that
// has some. Either way the request shows that a peer wants work: for
// DemandHold the node keeps Expose (and at least 8 batches) more tasks
// stealable.
func (s *Policy) StealRequest(now time.Time, from clusterpolicy.NodeID, want int, self clusterpolicy.Load) clusterpolicy.Action {
	ready := self.Ready
	a := s.askers[from]
	if a == nil {
		a = &asker{batch: s.p.TasksPerAnswer}
		s.askers[from] = a
	}
	a.adapt(now, s.p)
	s.demandUntil, s.demandBatch = now.Add(s.p.DemandHold), a.batch
	defer s.settle(now)
	want = max(want, 1)
	if n := min(lend(ready, s.lendBatch(a, want), s.p), want); n > 0 {
		return s.give(now, from, n)
	}
	if s.p.DeferFor > 0 && !self.Waiting() {
		s.forget(from) // a peer asks again only once its last request is over
		s.deferred = append(s.deferred, deferredRequest{from: from, want: want, at: now})
		s.stats.Deferred++
		return clusterpolicy.Action{Kind: clusterpolicy.Defer, Node: from}
	}
	s.stats.Refused++
	return clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: from}
}

// give counts n tasks lent to from.
func (s *Policy) give(now time.Time, from clusterpolicy.NodeID, n int) clusterpolicy.Action {
	if a := s.askers[from]; a != nil {
		a.lastGive = now
	}
	s.stats.Lent++
	s.stats.TasksOut += int64(n)
	return clusterpolicy.Action{Kind: clusterpolicy.Give, Node: from, Count: n}
}

// Pushed implements clusterpolicy.Policy: answer the deferred requests, oldest
// first, from what is ready now (NewTS's deferred answer: the next task
// spawned goes to the node that asked).
func (s *Policy) Pushed(now time.Time, ready int) []clusterpolicy.Action {
	var as []clusterpolicy.Action
	// One budget for them all: the node never lends more than it would
	// to a single request.
	budget := lend(ready, s.p.MaxTasksPerAnswer, s.p)
	for len(s.deferred) > 0 && budget > 0 {
		d := s.deferred[0]
		batch := s.p.TasksPerAnswer
		if a := s.askers[d.from]; a != nil {
			batch = s.lendBatch(a, d.want)
		} else if s.p.Half {
			batch = d.want
		}
		n := min(budget, d.want, batch)
		as = append(as, s.give(now, d.from, n))
		budget -= n
		s.deferred = s.deferred[1:]
	}
	s.settle(now)
	return as
}

// forget drops a deferred request of from, if any.
func (s *Policy) forget(from clusterpolicy.NodeID) {
	s.deferred = slices.DeleteFunc(s.deferred, func(d deferredRequest) bool { return d.from == from })
}

// expireDeferred refuses the deferred requests held for DeferFor: the
// asker may find work elsewhere.
func (s *Policy) expireDeferred(now time.Time) []clusterpolicy.Action {
	var as []clusterpolicy.Action
	for len(s.deferred) > 0 && now.Sub(s.deferred[0].at) >= s.p.DeferFor {
		as = append(as, clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: s.deferred[0].from})
		s.stats.Refused++
		s.deferred = s.deferred[1:]
	}
	return as
}

// lend is how many of ready tasks a node lends in a batch of at most
// batch under p.
func lend(ready, batch int, p Params) int {
	if ready < p.MinReady || ready < 1 {
		return 0
	}
	return min(batch, (ready+1)/2)
}

// StealReply implements clusterpolicy.Policy. It frees the slot of the request to
// from; n == 0 starts or doubles from's backoff, n > 0 resets it. After a
// refusal a hungry node asks another eligible peer at once.
func (s *Policy) StealReply(now time.Time, from clusterpolicy.NodeID, n int) []clusterpolicy.Action {
	if n > 0 {
		s.stats.Successes++
		s.stats.TasksIn += int64(n)
		s.hungry = false
		s.setIdle(false)
		s.lastIn = n
		s.holdDemand(now)
		defer s.settle(now)
	} else {
		s.stats.Refusals++
	}
	if i, ok := s.index[from]; ok {
		pr := s.peers[i]
		if pr.inFlight {
			s.heardAnswer(n > 0)
		}
		s.prefetchLanded(pr, n)
		s.land(pr)
		if n > 0 {
			pr.backoff, pr.until = 0, time.Time{}
		} else {
			s.refused(pr, now)
			// A refusal is a fresher load report than any gossip.
			pr.ready, pr.reported = 0, true
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
		s.shorten(pr) // it has work to lend now
	}
	return s.refill(now)
}

// JobStarted implements clusterpolicy.Policy: every node of a fresh job wants work,
// so the first splits keep their big pieces stealable (holdDemand).
func (s *Policy) JobStarted(now time.Time) []clusterpolicy.Action {
	s.holdDemand(now)
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
		s.holdDemand(now)
		defer s.settle(now)
		s.index[ev.Node] = len(s.peers)
		s.peers = append(s.peers, &peer{id: ev.Node, zone: ev.Zone, same: ev.Zone == s.zone})
	case known:
		s.forget(ev.Node)
		delete(s.askers, ev.Node)
		pr := s.peers[i]
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
	return s.refill(now)
}

// Tick implements clusterpolicy.Policy: requests unanswered for ReplyTimeout are
// forgotten (counting as refusals), deferred requests held for DeferFor
// are refused, self updates whether the node is hungry, and a hungry node
// fills its free request slots.
func (s *Policy) Tick(now time.Time, self clusterpolicy.Load) []clusterpolicy.Action {
	refusals := s.expireDeferred(now)
	for _, pr := range s.peers {
		if pr.inFlight && now.Sub(pr.sentAt) >= s.p.ReplyTimeout {
			s.land(pr)
			s.refused(pr, now)
			s.stats.Timeouts++
		}
	}
	if self.Workers > 0 {
		s.lowWater(self)
		s.setIdle(self.Waiting())
	}
	return append(refusals, s.refill(now)...)
}

// refill sends requests while the node is hungry, a slot is free and a peer
// is eligible, and settles the advice.
func (s *Policy) refill(now time.Time) []clusterpolicy.Action {
	var as []clusterpolicy.Action
	if s.wantsWork() {
		for most := s.inFlightMax(); s.flying < most; {
			pr := s.choose(now)
			if pr == nil {
				break
			}
			as = append(as, s.send(pr, now))
		}
	}
	s.settle(now)
	return as
}

// send records a request to pr and returns the action.
func (s *Policy) send(pr *peer, now time.Time) clusterpolicy.Action {
	pr.inFlight, pr.sentAt = true, now
	s.markPrefetch(pr)
	s.flying++
	if !pr.same {
		s.cross++
	}
	s.stats.Requests++
	return clusterpolicy.Action{Kind: clusterpolicy.Fish, Node: pr.id, Count: s.p.MaxTasksPerAnswer}
}

// land clears pr's request, if any.
func (s *Policy) land(pr *peer) {
	if !pr.inFlight {
		return
	}
	pr.inFlight, pr.sentAt = false, time.Time{}
	s.clearPrefetch(pr)
	s.flying--
	if !pr.same {
		s.cross--
	}
}

// refused starts or doubles pr's backoff, up to MaxBackoff, or while the
// node is idle up to IdleBackoff (idle.go).
func (s *Policy) refused(pr *peer, now time.Time) {
	if s.p.RetryBackoff < 0 {
		return
	}
	if pr.backoff == 0 {
		pr.backoff = s.p.RetryBackoff
	} else {
		pr.backoff = min(2*pr.backoff, s.backoffCap())
	}
	pr.refusedAt, pr.until = now, now.Add(pr.backoff)
}

// eligible: pr may be asked now (the zone rule aside).
func (pr *peer) eligible(now time.Time) bool {
	return !pr.inFlight && !now.Before(pr.until)
}

// choose picks the peer to ask, or nil; the caller keeps the count in
// flight.
func (s *Policy) choose(now time.Time) *peer {
	c := s.candidates(now)
	switch len(c) {
	case 0:
		return nil
	case 1:
		return c[0]
	}
	return c[s.rng.Below(len(c))]
}

// candidates lists the peers choose picks among, uniformly.
func (s *Policy) candidates(now time.Time) []*peer {
	c := s.scratch[:0]
	switch s.p.Victim {
	case Load:
		// The most loaded by the last reports, skipping those that
		// reported nothing ready; failing that, those never heard of;
		// failing that, any eligible peer. Reports are hints that lag
		// (gossip takes tens of milliseconds), and back-off already
		// bounds what asking an empty peer costs, so a stale "nothing
		// ready" must not keep a hungry node from fishing.
		best := 0
		for _, pr := range s.peers {
			if !pr.eligible(now) || !pr.reported || pr.ready <= 0 || pr.ready < best {
				continue
			}
			if pr.ready > best {
				best, c = pr.ready, c[:0]
			}
			c = append(c, pr)
		}
		if len(c) == 0 {
			c = s.appendEligible(c, now, true)
		}
		if len(c) == 0 {
			c = s.appendEligible(c, now, false)
		}
	case Zone:
		// Own zone first; one request to another zone at a time, sent
		// alongside the own-zone ones when there are slots for both.
		o := s.other[:0]
		sameFlying := s.flying - s.cross
		for _, pr := range s.peers {
			switch {
			case !pr.eligible(now):
			case pr.same:
				c = append(c, pr)
			case s.cross == 0:
				o = append(o, pr)
			}
		}
		s.scratch, s.other = c, o
		if len(o) > 0 && (len(c) == 0 || sameFlying > 0) {
			return o
		}
		return c
	default:
		c = s.appendEligible(c, now, false)
	}
	s.scratch = c
	return c
}

// appendEligible appends the peers that may be asked now, only those never
// heard from if unheardOnly.
func (s *Policy) appendEligible(c []*peer, now time.Time, unheardOnly bool) []*peer {
	for _, pr := range s.peers {
		if pr.eligible(now) && !(unheardOnly && pr.reported) {
			c = append(c, pr)
		}
	}
	return c
}

// settle recomputes the advice after an event at now.
func (s *Policy) settle(now time.Time) {
	s.advice.Expose = 0
	if now.Before(s.demandUntil) && s.p.Expose >= 0 {
		s.advice.Expose = max(s.p.Expose, 8*s.demandBatch)
	}
	s.advice.HungryAfter = s.hungryAfter(now)
	s.advice.Reserve = max(s.lastIn/2, s.p.LowWater)
	s.advice.Deferred = len(s.deferred)
}

// hungryAfter is the earliest time a Hungry event could send a request.
func (s *Policy) hungryAfter(now time.Time) time.Time {
	if s.flying >= s.inFlightMax() || len(s.peers) == 0 {
		return clusterpolicy.Never
	}
	if len(s.candidates(now)) > 0 {
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

// holdDemand keeps Expose for DemandHold from now: peers will want work
// soon. A node that runs dry says its peers are starting to starve too, a
// peer that joins has nothing yet, and on a fresh job nobody has; either
// way a task that arrives or is split now should leave its big pieces
// stealable rather than locked in inlined calls, which no thief can take (bench/README.md, "Simulated
// clusters": tsys sim --app ep --nodes 128).
func (s *Policy) holdDemand(now time.Time) {
	if until := now.Add(s.p.DemandHold); until.After(s.demandUntil) {
		s.demandUntil = until
	}
}
