package balance

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/opts"
)

// The defaults of RateParams; doc.go says why.
const (
	DefaultThreshold   = 0.10
	DefaultHDown       = 0.2
	DefaultHUp         = 0.8
	DefaultMinPeriod   = 20 * time.Millisecond
	DefaultMaxPeriod   = 500 * time.Millisecond
	DefaultMoveCost    = time.Millisecond
	defaultPeriodRatio = 20 // the period is at least this many moves of one task
)

// RateParams tunes a rate-aware balancing policy. A zero field takes its
// default.
type RateParams struct {
	// Threshold is the projected imbalance below which no work moves: the
	// time the most loaded node would finish over the balanced finish, less
	// one (default 0.10).
	Threshold float64
	// HDown and HUp weigh a node's past speed against a new sample: h when
	// the sample is below the estimate (a slow-down, trusted fast) and when
	// it is above (a speed-up, trusted slowly). Defaults 0.2 and 0.8.
	HDown, HUp float64
	// MinPeriod and MaxPeriod bound the balancing period, which is
	// MinPeriod or 20 times the learned cost of moving one task, whichever
	// is longer (defaults 20 ms and 500 ms).
	MinPeriod, MaxPeriod time.Duration
	// MoveCost is the cost of moving one task before any move was observed
	// (default 1 ms).
	MoveCost time.Duration
}

func (p RateParams) withDefaults() RateParams {
	if p.Threshold <= 0 {
		p.Threshold = DefaultThreshold
	}
	if p.HDown <= 0 || p.HDown >= 1 {
		p.HDown = DefaultHDown
	}
	if p.HUp <= 0 || p.HUp >= 1 {
		p.HUp = DefaultHUp
	}
	if p.MinPeriod <= 0 {
		p.MinPeriod = DefaultMinPeriod
	}
	if p.MaxPeriod < p.MinPeriod {
		p.MaxPeriod = max(DefaultMaxPeriod, p.MinPeriod)
	}
	if p.MoveCost <= 0 {
		p.MoveCost = DefaultMoveCost
	}
	return p
}

// ParseRateParams reads the options of --sched ratebalance:OPTIONS, a
// comma-separated list of threshold=F, period=D (the shortest period) and
// movecost=D.
func ParseRateParams(s string) (RateParams, error) {
	r, err := opts.Parse("ratebalance", s)
	if err != nil {
		return RateParams{}, err
	}
	const hint = "want a positive duration such as 20ms"
	p := RateParams{
		Threshold: r.Float("threshold", 0, true, "want a positive fraction such as 0.1"),
		MinPeriod: r.Duration("period", 0, hint),
		MoveCost:  r.Duration("movecost", 0, hint),
	}
	return p.withDefaults(), r.Err(opts.Known(RateOptions))
}

// RatePolicy is rate-aware balancing after Siegell and Steenkiste: every
// node reports its ready tasks and its speed (the share of a core its busy
// workers get, from clusterpolicy.Load's Rate and Busy) each period; a node whose
// projected finish lags the balanced one by more than Threshold gives its
// excess to the nodes that would finish early, in proportion to their
// capacity, unless the learned cost of the move exceeds what it saves. It
// implements clusterpolicy.Policy.
type RatePolicy struct {
	self clusterpolicy.NodeID
	p    RateParams

	reporter
	me       rateNode
	peers    peerSet[rateNode]
	moveCost time.Duration // learned cost of moving one task
	period   time.Duration
	stats    RateStats
	// dry counts the peers that are dry (isDry), so that a tick need not
	// visit every peer to know whether one is.
	dry int
	// visitAll makes the policy visit every peer where it is defined to,
	// on every tick and before it knows whether it holds a task to give;
	// tests compare the two.
	visitAll bool
}

// rateNode is what a policy knows of a node, itself included.
type rateNode struct {
	ready    int
	workers  int
	speed    float64 // filtered share of a core per busy worker
	taskTime time.Duration
	heard    bool
	// sent and sentAt: tasks given to this node and when, for learning the
	// cost of a move from its next report.
	sent   int
	sentAt time.Time
}

// RateStats counts what a rate policy did.
type RateStats struct {
	Reports   int64 // load reports sent (each to every peer)
	Moves     int64 // Give actions
	TasksOut  int64 // tasks in them
	Cancelled int64 // moves the cost-benefit check cancelled
}

// NewRate makes the rate-aware policy of node self.
func NewRate(self clusterpolicy.NodeID, p RateParams) *RatePolicy {
	s := &RatePolicy{self: self, p: p.withDefaults(), peers: newPeerSet[rateNode]()}
	s.me.speed = 1
	s.rates = true // peers weigh a node by the rate its reports tell
	s.moveCost = s.p.MoveCost
	s.period = s.p.MinPeriod
	s.settle(time.Time{}, s.period, 0)
	return s
}

// Name implements clusterpolicy.Policy.
func (s *RatePolicy) Name() string { return "ratebalance" }

// Params reports the parameters in use.
func (s *RatePolicy) Params() RateParams { return s.p }

// Stats reports the policy's counters.
func (s *RatePolicy) Stats() RateStats {
	st := s.stats
	st.Reports = s.reports
	return st
}

// Period is the balancing period in force.
func (s *RatePolicy) Period() time.Duration { return s.period }

// Tick implements clusterpolicy.Policy: take this node's load, and every period
// report it and balance; between periods, balance when a peer is known to
// have run dry (its report may have come while this node had no work to
// give, at the start of a job).
func (s *RatePolicy) Tick(now time.Time, self clusterpolicy.Load) []clusterpolicy.Action {
	s.observe(&s.me, self)
	if !s.due(now, self, s.period) {
		var as []clusterpolicy.Action
		if s.dryPeer() {
			as = s.balance(now)
		}
		s.settle(now, s.period, s.peers.len()) // the demand hold may have run out
		return as
	}
	as := append([]clusterpolicy.Action{s.report(now, self)}, s.balance(now)...)
	s.settle(now, s.period, s.peers.len())
	return as
}

// NextDue implements clusterpolicy.Sleeper: the next report or the end of
// the demand hold, but at once while a busy node knows of a peer that ran
// dry, since Tick balances towards it with what the node holds now. An
// idle node has nothing to give.
func (s *RatePolicy) NextDue(now time.Time, self clusterpolicy.Load) time.Time {
	if !self.Waiting() && s.dryPeer() {
		return now
	}
	return s.nextDue(now, self, s.period)
}

// Hungry implements clusterpolicy.Policy: a node out of work reports at once, at
// most every quarter period, so that the others can place work on it.
func (s *RatePolicy) Hungry(now time.Time) []clusterpolicy.Action {
	s.me.ready = 0
	as := s.hungry(now, s.period, s.peers.len())
	s.settle(now, s.period, s.peers.len())
	return as
}

// LoadReport implements clusterpolicy.Policy: take a peer's load, learn the cost
// of a move from the first report after tasks were given to it, and
// balance at once when the peer has run dry.
func (s *RatePolicy) LoadReport(now time.Time, from clusterpolicy.NodeID, l clusterpolicy.Load) []clusterpolicy.Action {
	pr := s.peers.get(from)
	if pr == nil {
		return nil
	}
	if pr.sent > 0 {
		// The tasks reached the peer by its next report: the time since
		// they left, less half a period of waiting for the report, is
		// what moving them cost.
		sample := max(now.Sub(pr.sentAt)-s.period/2, 0) / time.Duration(pr.sent)
		s.moveCost = (s.moveCost + sample) / 2
		s.period = min(max(s.p.MinPeriod, defaultPeriodRatio*s.moveCost), s.p.MaxPeriod)
		pr.sent = 0
	}
	was := isDry(pr)
	s.observe(pr, l)
	pr.heard = true
	s.recount(was, pr)
	var as []clusterpolicy.Action
	if l.Ready == 0 {
		s.holdDemand(now, s.period)
		// A peer ran dry: balance now rather than leave it idle until
		// this node's next period.
		as = s.balance(now)
	}
	s.settle(now, s.period, s.peers.len())
	return as
}

// dryPeer reports whether a peer said it had no ready task, and nothing
// was given to it since.
func (s *RatePolicy) dryPeer() bool {
	if !s.visitAll {
		return s.dry > 0
	}
	dry := false
	s.peers.each(func(_ clusterpolicy.NodeID, pr *rateNode) { dry = dry || isDry(pr) })
	return dry
}

// isDry: the peer said it had no ready task, and nothing was given to it
// since.
func isDry(pr *rateNode) bool { return pr.heard && pr.ready == 0 }

// recount keeps dry after pr changed; was is whether pr was dry before.
func (s *RatePolicy) recount(was bool, pr *rateNode) {
	switch is := isDry(pr); {
	case was && !is:
		s.dry--
	case !was && is:
		s.dry++
	}
}

// observe folds a load into what is known of n: the ready count as it is,
// the speed through the asymmetric filter, and only when workers were
// busy (an idle node's rate says nothing of its speed).
func (s *RatePolicy) observe(n *rateNode, l clusterpolicy.Load) {
	n.ready, n.workers = l.Ready, max(l.Workers, 1)
	if l.TaskTime > 0 {
		n.taskTime = l.TaskTime
	}
	if l.Busy < 0.05 {
		return
	}
	sample := min(l.Rate/l.Busy, 1)
	h := s.p.HUp
	if sample < n.speed {
		h = s.p.HDown
	}
	n.speed = (1-h)*sample + h*n.speed
}

// balance decides this node's moves: when its projected finish lags the
// balanced one by more than the threshold, it gives its excess to the
// nodes below their share, largest deficit first, each move checked
// against its cost.
func (s *RatePolicy) balance(now time.Time) []clusterpolicy.Action {
	if s.me.ready < 1 && !s.visitAll {
		return nil // nothing to give, whatever the others hold
	}
	ready, capacity := float64(s.me.ready), s.capacity(&s.me)
	taskTime := s.me.taskTime
	s.peers.each(func(_ clusterpolicy.NodeID, pr *rateNode) {
		if pr.heard {
			ready += float64(pr.ready)
			capacity += s.capacity(pr)
			taskTime = max(taskTime, pr.taskTime)
		}
	})
	if ready == 0 || capacity == 0 || s.me.ready < 1 {
		return nil
	}
	balanced := ready / capacity // task-units per unit of capacity
	mine := float64(s.me.ready) / s.capacity(&s.me)
	if mine <= balanced*(1+s.p.Threshold) {
		return nil
	}
	// Rounded up: this node's busy workers hold work the count leaves
	// out, so its last ready task may go to a node that has none.
	excess := int(math.Ceil(float64(s.me.ready) - balanced*s.capacity(&s.me) - 1e-9))
	type want struct {
		id      clusterpolicy.NodeID
		deficit float64
	}
	var wants []want
	s.peers.each(func(id clusterpolicy.NodeID, pr *rateNode) {
		// A share of under one task still earns a dry node one: across
		// three or more nodes a handful of ready tasks gives every share
		// less than one, and nothing would move to nodes with nothing.
		d := balanced*s.capacity(pr) - float64(pr.ready)
		if pr.heard && (d >= 1 || (pr.ready == 0 && d > 0)) {
			wants = append(wants, want{id, d})
		}
	})
	slices.SortFunc(wants, func(a, b want) int {
		if a.deficit != b.deficit {
			return -int(math.Copysign(1, a.deficit-b.deficit))
		}
		return strings.Compare(string(a.id), string(b.id))
	})
	var as []clusterpolicy.Action
	for _, w := range wants {
		if excess < 1 {
			break
		}
		n := min(excess, max(1, int(math.Round(w.deficit))))
		pr := s.peers.get(w.id)
		// Cost-benefit: moving n tasks saves this node the time they
		// would have taken here beyond the balanced finish; it costs n
		// moves. A task's worth is the mean frame time, which in a tree
		// understates the oldest ready tasks (whole subtrees) that a move
		// takes; so a move to a peer that has run dry is also worth the
		// period it would otherwise sit idle.
		gain := time.Duration(float64(n) * float64(taskTime) / s.me.speed)
		if pr.ready == 0 {
			gain = max(gain, s.period)
		}
		if cost := time.Duration(n) * s.moveCost; taskTime > 0 && cost > gain {
			s.stats.Cancelled++
			continue
		}
		pr.sent, pr.sentAt = pr.sent+n, now
		was := isDry(pr)
		pr.ready += n
		s.recount(was, pr)
		s.me.ready -= n
		excess -= n
		s.stats.Moves++
		s.stats.TasksOut += int64(n)
		as = append(as, clusterpolicy.Action{Kind: clusterpolicy.Give, Node: w.id, Count: n})
	}
	return as
}

// capacity is what a node does per second: its workers times the share of
// a core each gets.
func (s *RatePolicy) capacity(n *rateNode) float64 { return float64(n.workers) * n.speed }

// JobStarted implements clusterpolicy.Policy.
func (s *RatePolicy) JobStarted(now time.Time) []clusterpolicy.Action {
	s.jobStarted(now, s.period, s.peers.len())
	return nil
}

// Membership implements clusterpolicy.Policy.
func (s *RatePolicy) Membership(now time.Time, ev clusterpolicy.MemberEvent) []clusterpolicy.Action {
	switch {
	case ev.Node == s.self:
	case ev.Joined:
		s.peers.add(ev.Node, rateNode{speed: 1, workers: 1})
		as := s.joined(now)
		s.settle(now, s.period, s.peers.len())
		return as
	default:
		// Left, or Leaving: a balancing policy only gives, and a node
		// that drains takes nothing.
		if pr := s.peers.get(ev.Node); pr != nil && isDry(pr) {
			s.dry--
		}
		s.peers.remove(ev.Node)
	}
	s.settle(now, s.period, s.peers.len())
	return nil
}
