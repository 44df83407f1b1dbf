package balance

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

var _ clusterpolicy.Policy = (*RatePolicy)(nil)

func newRate(p RateParams, peers ...clusterpolicy.NodeID) *RatePolicy {
	s := NewRate("self", p)
	for _, id := range peers {
		s.Membership(t0, clusterpolicy.MemberEvent{Node: id, Joined: true})
	}
	return s
}

// busy is the load of a node of one worker with ready tasks, busy all the
// time at the given share of a core, its tasks worth 1 ms of CPU.
func busy(ready int, share float64) clusterpolicy.Load {
	return clusterpolicy.Load{Ready: ready, Workers: 1, Rate: share, Busy: 1, TaskTime: time.Millisecond}
}

// TestSpeedFilterTrustsSlowDownsFast: the asymmetric filter follows a
// slow-down within a few samples and a speed-up only slowly; an idle
// node's rate says nothing of its speed.
func TestSpeedFilterTrustsSlowDownsFast(t *testing.T) {
	s := newRate(RateParams{})
	for range 3 {
		s.observe(&s.me, busy(5, 0.5))
	}
	if s.me.speed > 0.52 {
		t.Fatalf("after 3 samples at half speed: %.3f", s.me.speed)
	}
	s.observe(&s.me, busy(5, 1))
	if s.me.speed > 0.65 {
		t.Fatalf("one sample at full speed moved the estimate to %.3f", s.me.speed)
	}
	before := s.me.speed
	s.observe(&s.me, clusterpolicy.Load{Ready: 0, Workers: 1, Rate: 0, Busy: 0})
	if s.me.speed != before {
		t.Fatalf("an idle report changed the speed: %.3f -> %.3f", before, s.me.speed)
	}
}

// TestPlacesWorkByCapacity: a loaded node gives its excess to an idle
// peer in proportion to their capacities, once per period.
func TestPlacesWorkByCapacity(t *testing.T) {
	for _, c := range []struct {
		peerShare float64
		want      int
	}{{1, 5}, {0.5, 3}} { // 10 tasks: 5 and 5, or 6.7 and 3.3
		s := newRate(RateParams{MinPeriod: 10 * time.Millisecond}, "p")
		for range 20 { // settle the peer's speed
			s.LoadReport(t0, "p", busy(0, c.peerShare))
		}
		as := s.Tick(t0, busy(10, 1))
		want := []clusterpolicy.Action{{Kind: clusterpolicy.Report}, {Kind: clusterpolicy.Give, Node: "p", Count: c.want}}
		if !reflect.DeepEqual(as, want) {
			t.Errorf("peer at %.1f of a core: %v, want %v", c.peerShare, as, want)
		}
		if as := s.Tick(t0.Add(5*time.Millisecond), busy(10, 1)); as != nil {
			t.Errorf("within the period: %v", as)
		}
	}
}

// TestNothingMovesBelowTheThreshold: a projected imbalance under 10% moves
// nothing.
func TestNothingMovesBelowTheThreshold(t *testing.T) {
	s := newRate(RateParams{}, "p")
	s.LoadReport(t0, "p", busy(10, 1))
	if as := s.Tick(t0, busy(11, 1)); len(as) != 1 || as[0].Kind != clusterpolicy.Report {
		t.Fatalf("11 against 10 ready: %v", as)
	}
}

// TestCostBenefitCancelsDearMoves: when moving a task costs more than it
// saves, the move is cancelled and counted.
func TestCostBenefitCancelsDearMoves(t *testing.T) {
	s := newRate(RateParams{MoveCost: time.Second}, "p")
	s.LoadReport(t0, "p", busy(0, 1))
	as := s.Tick(t0, busy(10, 1))
	if len(as) != 1 || s.Stats().Cancelled != 1 {
		t.Fatalf("actions %v, stats %+v", as, s.Stats())
	}
}

// TestDryPeerIsWorthAPeriod: small tasks whose moves cost more than their
// mean time still go to a peer that ran dry (it would idle a period), and
// not to one that has work.
func TestDryPeerIsWorthAPeriod(t *testing.T) {
	small := func(ready int) clusterpolicy.Load {
		l := busy(ready, 1)
		l.TaskTime = 10 * time.Microsecond
		return l
	}
	s := newRate(RateParams{MoveCost: time.Millisecond, MinPeriod: 20 * time.Millisecond}, "dry", "fed")
	s.LoadReport(t0, "dry", small(0))
	s.LoadReport(t0, "fed", small(4))
	as := s.Tick(t0, small(40))
	var gave []string
	for _, a := range as[1:] {
		if a.Kind == clusterpolicy.Give {
			gave = append(gave, string(a.Node))
		}
	}
	if !reflect.DeepEqual(gave, []string{"dry"}) || s.Stats().Cancelled != 1 {
		t.Fatalf("gave to %v, stats %+v; want a move to dry only, fed's cancelled", gave, s.Stats())
	}
}

// TestPeriodAdaptsToTheLearnedMoveCost: the first report after a move
// teaches its cost, and the period becomes 20 moves of one task.
func TestPeriodAdaptsToTheLearnedMoveCost(t *testing.T) {
	s := newRate(RateParams{MinPeriod: 10 * time.Millisecond, MoveCost: time.Millisecond}, "p")
	s.LoadReport(t0, "p", busy(0, 1))
	as := s.Tick(t0, busy(10, 1))
	if len(as) != 2 || as[1].Count != 5 {
		t.Fatalf("%v", as)
	}
	// The peer reports 105 ms later: (105 - 5) ms / 5 tasks = 20 ms a task,
	// averaged with the 1 ms it assumed.
	s.LoadReport(t0.Add(105*time.Millisecond), "p", busy(5, 1))
	if s.moveCost != 10500*time.Microsecond || s.Period() != 210*time.Millisecond {
		t.Fatalf("move cost %v, period %v", s.moveCost, s.Period())
	}
}

// TestRateHungryAndRequests: an idle node reports at once (at most every
// quarter period); requests are refused.
func TestRateHungryAndRequests(t *testing.T) {
	s := newRate(RateParams{MinPeriod: 8 * time.Millisecond}, "p")
	if as := s.Hungry(t0); len(as) != 1 || as[0].Kind != clusterpolicy.Report {
		t.Fatalf("hungry: %v", as)
	}
	if as := s.Hungry(t0.Add(time.Millisecond)); as != nil {
		t.Fatalf("hungry again within a quarter period: %v", as)
	}
	if a := s.StealRequest(t0, "p", 1, clusterpolicy.Load{Ready: 5, Workers: 1}); a.Kind != clusterpolicy.Refuse {
		t.Fatalf("%+v", a)
	}
	if g := NewRate("alone", RateParams{}).Advice().HungryAfter; g.Before(clusterpolicy.Never) {
		t.Fatalf("a lone node advises %v", g)
	}
}

func TestParseRateParams(t *testing.T) {
	p, err := ParseRateParams("threshold=0.2,period=50ms,movecost=2ms")
	if err != nil || p.Threshold != 0.2 || p.MinPeriod != 50*time.Millisecond || p.MoveCost != 2*time.Millisecond {
		t.Fatalf("%+v, %v", p, err)
	}
	if p, _ := ParseRateParams(""); p.Threshold != DefaultThreshold || p.MinPeriod != DefaultMinPeriod {
		t.Fatalf("defaults %+v", p)
	}
	for in, msg := range map[string]string{
		"threshold=0":  `threshold="0"`,
		"period=soon":  `period="soon"`,
		"greed=1":      `unknown ratebalance option "greed=1"`,
		"movecost=-1s": `movecost="-1s"`,
	} {
		if _, err := ParseRateParams(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", in, err, msg)
		}
	}
}

// TestDryPeerIsServedAtOnce: a report that a peer has run dry makes a
// loaded node balance on the spot, not at its next period.
func TestDryPeerIsServedAtOnce(t *testing.T) {
	s := newRate(RateParams{MinPeriod: 20 * time.Millisecond}, "p")
	s.LoadReport(t0, "p", busy(3, 1))
	// The periodic round: 10 against 3 gives p 4 (its share of 3.5,
	// rounded up: this node's worker is busy too), leaving 6 here.
	if as := s.Tick(t0, busy(10, 1)); len(as) != 2 || as[1].Count != 4 {
		t.Fatalf("periodic round: %v", as)
	}
	// p ran dry within the period: half of the 6 left goes at once.
	as := s.LoadReport(t0.Add(time.Millisecond), "p", busy(0, 1))
	if len(as) != 1 || as[0].Kind != clusterpolicy.Give || as[0].Node != "p" || as[0].Count != 3 {
		t.Fatalf("a dry peer's report: %v, want a Give of 3 to p", as)
	}
}

// TestDryPeerHeardEarlyIsServedAtTheTick: a peer that ran dry before this
// node had work (the start of a job) gets work at this node's next tick,
// not at its next period.
func TestDryPeerHeardEarlyIsServedAtTheTick(t *testing.T) {
	s := newRate(RateParams{MinPeriod: 20 * time.Millisecond}, "p")
	s.Hungry(t0) // this node reports first: the next period is 20 ms away
	if as := s.LoadReport(t0.Add(100*time.Microsecond), "p", busy(0, 1)); len(as) != 0 {
		t.Fatalf("nothing to give yet, and gave %v", as)
	}
	as := s.Tick(t0.Add(2*time.Millisecond), busy(8, 1))
	if len(as) != 1 || as[0].Kind != clusterpolicy.Give || as[0].Node != "p" {
		t.Fatalf("the tick after the dry report: %v, want a Give to p", as)
	}
	// Given to, p is no longer dry: the next tick waits for the period.
	if as := s.Tick(t0.Add(4*time.Millisecond), busy(4, 1)); len(as) != 0 {
		t.Errorf("a tick with no dry peer: %v", as)
	}
}

// TestFewTasksReachEveryDryNode: with fewer ready tasks than nodes every
// share is under one task, and still each dry node gets one while they
// last, the last one included (EP's few large tasks on 3 and 4 nodes).
func TestFewTasksReachEveryDryNode(t *testing.T) {
	s := newRate(RateParams{}, "a", "b", "c")
	for _, p := range []clusterpolicy.NodeID{"a", "b", "c"} {
		s.LoadReport(t0, p, busy(0, 1))
	}
	as := s.Tick(t0, busy(2, 1))
	gave := 0
	for _, a := range as {
		if a.Kind == clusterpolicy.Give {
			if a.Count != 1 {
				t.Errorf("gave %d to %s, want 1", a.Count, a.Node)
			}
			gave += a.Count
		}
	}
	if gave != 2 {
		t.Fatalf("actions %v: want one task to each of two dry nodes", as)
	}
}
