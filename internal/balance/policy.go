package balance

import (
	"math"
	"math/bits"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/opts"
)

// The defaults of Params; doc.go says why.
const (
	DefaultLimit  = 1
	DefaultPeriod = 5 * time.Millisecond
	// DefaultReportCost is what a status message costs a node's CPU to
	// send, and again to receive, on loopback (sim.Defaults' Overhead).
	DefaultReportCost = 10 * time.Microsecond
	// InteractionShare is the largest share of a period that a round of
	// reports may cost a node: Siegell and Steenkiste's 5%.
	InteractionShare = 0.05
)

// Params tunes a balancing policy. A zero field takes its default.
type Params struct {
	// Limit: a node whose ready count is below it receives one task from
	// each node that holds more (default 1).
	Limit int
	// Period is how often a node reports its load to every peer. Zero
	// chooses it (PeriodFor): DefaultPeriod, or longer on a cluster so
	// large that a round of reports would cost a node more than
	// InteractionShare of that.
	Period time.Duration
	// ReportCost is what a status message costs a node, to send and again
	// to receive (default DefaultReportCost): what a chosen period weighs.
	ReportCost time.Duration
}

func (p Params) withDefaults() Params {
	if p.Limit <= 0 {
		p.Limit = DefaultLimit
	}
	if p.ReportCost <= 0 {
		p.ReportCost = DefaultReportCost
	}
	return p
}

// PeriodFor is the period among peers other nodes: Period if set, else
// Siegell and Steenkiste's rule, that a round of reports (one sent to
// each peer and one received from each) costs at most InteractionShare of
// the period, and never below DefaultPeriod. Without the rule a node of
// a thousand spends more than its CPU on reports and the job never ends
// (sim/doc.go, BenchmarkBalance1024).
func (p Params) PeriodFor(peers int) time.Duration {
	if p.Period > 0 {
		return p.Period
	}
	cost := p.ReportCost
	if cost <= 0 {
		cost = DefaultReportCost
	}
	round := time.Duration(2*peers) * cost
	return max(DefaultPeriod, time.Duration(float64(round)/InteractionShare))
}

// ParseParams reads the options of --sched balance:OPTIONS, a comma-
// separated list of limit=N, period=D and cost=D (Go durations).
func ParseParams(s string) (Params, error) {
	r, err := opts.Parse("balance", s)
	if err != nil {
		return Params{}, err
	}
	p := Params{
		Limit:      int(r.Int("limit", 0)),
		Period:     r.Duration("period", 0, "want a positive duration such as 5ms"),
		ReportCost: r.Duration("cost", 0, "want a positive duration such as 10us: what a status message costs a node"),
	}
	return p.withDefaults(), r.Err(opts.Known(Options))
}

// Policy is the balancing scheduler of one node. It implements
// clusterpolicy.Policy.
type Policy struct {
	self clusterpolicy.NodeID
	p    Params

	reporter
	peers peerSet[peer]
	ready int // this node's ready count at the last tick
	gives int64
	// wanting counts the peers a tick may give to (wants), and floor is at
	// most the least ready count among them: with none, or with this node
	// holding no more than floor, a tick gives nothing. Otherwise it
	// visits those peers alone, in the order of names: want has a bit for
	// each, by its place in that order, as of the peers' gen wantGen.
	wanting, floor int
	want           []uint64
	wantGen        uint64
	// visitAll makes every tick visit every peer, as the policy is
	// defined; tests compare the two.
	visitAll bool
}

// peer is what the policy knows of another node.
type peer struct {
	ready int
	// served: this node gave the peer a task since the peer's last
	// report, so it gives no more until the next one.
	served bool
	heard  bool
}

// Stats counts what a policy did.
type Stats struct {
	Reports int64 // load reports sent (each to every peer)
	Gives   int64 // tasks given to a peer below the limit
}

// New makes the balancing policy of node self. Zero fields of p take their
// defaults.
func New(self clusterpolicy.NodeID, p Params) *Policy {
	s := &Policy{self: self, p: p.withDefaults(), peers: newPeerSet[peer](), floor: math.MaxInt}
	s.settle(time.Time{}, s.period(), 0)
	return s
}

// period is the report period among the peers the policy knows now.
func (s *Policy) period() time.Duration { return s.p.PeriodFor(s.peers.len()) }

// Params reports the parameters in use.
func (s *Policy) Params() Params { return s.p }

// Stats reports the policy's counters.
func (s *Policy) Stats() Stats { return Stats{Reports: s.reports, Gives: s.gives} }

// Name implements clusterpolicy.Policy.
func (s *Policy) Name() string { return "balance" }

// Tick implements clusterpolicy.Policy: report the load every Period, and give
// to the peers below the limit that have not been served since they
// reported.
func (s *Policy) Tick(now time.Time, self clusterpolicy.Load) []clusterpolicy.Action {
	s.ready = self.Ready
	var as []clusterpolicy.Action
	if s.due(now, self, s.period()) {
		as = append(as, s.report(now, self))
	}
	s.sync()
	switch {
	case s.visitAll:
		for i, id := range s.peers.order {
			as = s.maybeGive(as, id, s.peers.get(id), i)
		}
	case s.wanting > 0 && s.ready > s.floor:
	visit:
		for w, word := range s.want {
			for ; word != 0; word &= word - 1 {
				// Past floor, no peer left gets a task: each wants
				// more than this node holds.
				if s.ready <= s.floor {
					break visit
				}
				i := w*64 + bits.TrailingZeros64(word)
				id := s.peers.order[i]
				as = s.maybeGive(as, id, s.peers.get(id), i)
			}
		}
	}
	s.settle(now, s.period(), s.peers.len())
	return as
}

// NextDue implements clusterpolicy.Sleeper: the next report or the end of
// the demand hold, but at once while a busy node has a peer below the
// limit, since its next spawn, which no event tells, would make a Tick
// give. An idle node has nothing to give.
func (s *Policy) NextDue(now time.Time, self clusterpolicy.Load) time.Time {
	if !self.Waiting() && (s.visitAll || s.wanting > 0) {
		return now
	}
	return s.nextDue(now, self, s.period())
}

// sync remakes want after peers came or went.
func (s *Policy) sync() {
	if s.wantGen == s.peers.gen {
		return
	}
	s.want = make([]uint64, (s.peers.len()+63)/64)
	for i, id := range s.peers.order {
		if s.wants(s.peers.get(id)) {
			s.want[i/64] |= 1 << (i % 64)
		}
	}
	s.wantGen = s.peers.gen
}

// wants reports whether a tick would give pr a task if this node held
// more than pr does.
func (s *Policy) wants(pr *peer) bool { return pr.heard && !pr.served && pr.ready < s.p.Limit }

// track keeps wanting, floor and want after pr, at place i, changed;
// was is whether pr was wanting before. want must be in sync.
func (s *Policy) track(was bool, pr *peer, i int) {
	is := s.wants(pr)
	switch {
	case was && !is:
		s.wanting--
		s.want[i/64] &^= 1 << (i % 64)
	case !was && is:
		s.wanting++
		s.want[i/64] |= 1 << (i % 64)
	}
	switch {
	case s.wanting == 0:
		s.floor = math.MaxInt
	case is:
		s.floor = min(s.floor, pr.ready)
	}
}

// Hungry implements clusterpolicy.Policy: a node out of work says so at once
// (at most every Period/4), rather than at its next periodic report.
func (s *Policy) Hungry(now time.Time) []clusterpolicy.Action {
	s.ready = 0
	as := s.hungry(now, s.period(), s.peers.len())
	s.settle(now, s.period(), s.peers.len())
	return as
}

// LoadReport implements clusterpolicy.Policy: remember the peer's ready count, and
// give it a task if it is below the limit and this node holds more.
func (s *Policy) LoadReport(now time.Time, from clusterpolicy.NodeID, l clusterpolicy.Load) []clusterpolicy.Action {
	s.sync()
	pr, i := s.peers.place(from)
	if pr == nil {
		return nil
	}
	was := s.wants(pr)
	pr.ready, pr.served, pr.heard = l.Ready, false, true
	s.track(was, pr, i)
	if l.Ready == 0 {
		s.holdDemand(now, s.period())
	}
	as := s.maybeGive(nil, from, pr, i)
	s.settle(now, s.period(), s.peers.len())
	return as
}

// maybeGive appends a Give of one task to pr, at place i, when it is below
// the limit, this node holds more, and it was not served since its last
// report.
func (s *Policy) maybeGive(as []clusterpolicy.Action, id clusterpolicy.NodeID, pr *peer, i int) []clusterpolicy.Action {
	if !pr.heard || pr.served || pr.ready >= s.p.Limit || s.ready <= pr.ready {
		return as
	}
	pr.served = true
	s.track(true, pr, i)
	s.ready-- // the task leaves; the next report says how many are left
	s.gives++
	return append(as, clusterpolicy.Action{Kind: clusterpolicy.Give, Node: id, Count: 1})
}

// JobStarted implements clusterpolicy.Policy.
func (s *Policy) JobStarted(now time.Time) []clusterpolicy.Action {
	s.jobStarted(now, s.period(), s.peers.len())
	return nil
}

// Membership implements clusterpolicy.Policy.
func (s *Policy) Membership(now time.Time, ev clusterpolicy.MemberEvent) []clusterpolicy.Action {
	switch {
	case ev.Node == s.self:
	case ev.Joined:
		s.peers.add(ev.Node, peer{})
		as := s.joined(now)
		s.settle(now, s.period(), s.peers.len())
		return as
	default:
		// Left, or Leaving: a balancing policy only gives, and a node
		// that drains takes nothing.
		if pr := s.peers.get(ev.Node); pr != nil && s.wants(pr) {
			s.wanting--
			if s.wanting == 0 {
				s.floor = math.MaxInt
			}
		}
		s.peers.remove(ev.Node)
	}
	s.settle(now, s.period(), s.peers.len())
	return nil
}
