package balance

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

var _ clusterpolicy.Policy = (*Policy)(nil)

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

func newPolicy(peers ...clusterpolicy.NodeID) *Policy {
	s := New("self", Params{Limit: 2, Period: 4 * time.Millisecond})
	for _, p := range peers {
		s.Membership(t0, clusterpolicy.MemberEvent{Node: p, Joined: true})
	}
	return s
}

var report = clusterpolicy.Action{Kind: clusterpolicy.Report}

func give(n clusterpolicy.NodeID) clusterpolicy.Action {
	return clusterpolicy.Action{Kind: clusterpolicy.Give, Node: n, Count: 1}
}

// TestReportsEveryPeriod: a report at the first tick, then one per Period.
func TestReportsEveryPeriod(t *testing.T) {
	s := newPolicy("p")
	var times []int
	for i := 0; i <= 12; i++ {
		if as := s.Tick(ms(i), clusterpolicy.Load{Ready: 5}); len(as) > 0 {
			if !reflect.DeepEqual(as, []clusterpolicy.Action{report}) {
				t.Fatalf("tick %d: %v", i, as)
			}
			times = append(times, i)
		}
	}
	if want := []int{0, 4, 8, 12}; !reflect.DeepEqual(times, want) {
		t.Fatalf("reports at %v ms, want %v", times, want)
	}
}

// TestGivesOneTaskPerReportBelowTheLimit: a peer below the limit gets one
// task per report it sends, from a node that holds more, and none from a
// node that holds no more than it.
func TestGivesOneTaskPerReportBelowTheLimit(t *testing.T) {
	s := newPolicy("p", "q")
	s.Tick(ms(0), clusterpolicy.Load{Ready: 6})
	if as := s.LoadReport(ms(1), "p", clusterpolicy.Load{Ready: 1}); !reflect.DeepEqual(as, []clusterpolicy.Action{give("p")}) {
		t.Fatalf("report below the limit: %v", as)
	}
	// No more until p reports again, ticks or not.
	if as := s.Tick(ms(2), clusterpolicy.Load{Ready: 5}); as != nil {
		t.Fatalf("tick after giving: %v", as)
	}
	if as := s.LoadReport(ms(3), "p", clusterpolicy.Load{Ready: 0}); !reflect.DeepEqual(as, []clusterpolicy.Action{give("p")}) {
		t.Fatalf("second report below the limit: %v", as)
	}
	if as := s.LoadReport(ms(3), "q", clusterpolicy.Load{Ready: 2}); as != nil {
		t.Fatalf("a peer at the limit got %v", as)
	}
	// A node no richer than the peer gives nothing.
	poor := newPolicy("p")
	poor.Tick(ms(0), clusterpolicy.Load{Ready: 1})
	if as := poor.LoadReport(ms(1), "p", clusterpolicy.Load{Ready: 1}); as != nil {
		t.Fatalf("a node with as few tasks gave %v", as)
	}
	// The tick gives to a peer whose report came while this node had none.
	if as := poor.Tick(ms(2), clusterpolicy.Load{Ready: 4}); !reflect.DeepEqual(as, []clusterpolicy.Action{give("p")}) {
		t.Fatalf("tick once richer: %v", as)
	}
	if st := s.Stats(); st.Gives != 2 || st.Reports != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestHungryReportsAtOnce: a node out of work reports without waiting for
// its period, at most every Period/4, and its advice says when.
func TestHungryReportsAtOnce(t *testing.T) {
	s := newPolicy("p")
	if as := s.Hungry(ms(0)); !reflect.DeepEqual(as, []clusterpolicy.Action{report}) {
		t.Fatalf("first hunger: %v", as)
	}
	if g := s.Advice().HungryAfter; !g.Equal(ms(1)) {
		t.Fatalf("HungryAfter %v, want 1 ms", g.Sub(t0))
	}
	if as := s.Hungry(t0.Add(500 * time.Microsecond)); as != nil {
		t.Fatalf("hunger within Period/4: %v", as)
	}
	if as := s.Hungry(ms(1)); !reflect.DeepEqual(as, []clusterpolicy.Action{report}) {
		t.Fatalf("hunger after Period/4: %v", as)
	}
	// Without peers there is nobody to tell.
	if g := New("alone", Params{}).Advice().HungryAfter; g.Before(clusterpolicy.Never) {
		t.Fatalf("a lone node advises %v", g)
	}
}

// TestPeersComeAndGo: reports from strangers and from departed peers are
// ignored; requests are refused.
func TestPeersComeAndGo(t *testing.T) {
	s := newPolicy("p")
	s.Tick(ms(0), clusterpolicy.Load{Ready: 9})
	if as := s.LoadReport(ms(1), "stranger", clusterpolicy.Load{}); as != nil {
		t.Fatalf("a stranger got %v", as)
	}
	s.Membership(ms(1), clusterpolicy.MemberEvent{Node: "p"})
	if as := s.LoadReport(ms(2), "p", clusterpolicy.Load{}); as != nil {
		t.Fatalf("a departed peer got %v", as)
	}
	if a := s.StealRequest(ms(2), "p", 1, clusterpolicy.Load{Ready: 9, Workers: 1}); a.Kind != clusterpolicy.Refuse {
		t.Fatalf("StealRequest = %+v", a)
	}
}

// TestPeriodFor: a period given is the period; a period chosen is the
// default until a round of reports, 2 x peers x cost, would take more
// than 5% of it, and grows with the peers after that.
func TestPeriodFor(t *testing.T) {
	chosen := Params{}.withDefaults()
	for _, c := range []struct {
		p     Params
		peers int
		want  time.Duration
	}{
		{chosen, 0, DefaultPeriod},
		{chosen, 12, DefaultPeriod},                        // 240 us of 5 ms
		{chosen, 13, DefaultPeriod + 200*time.Microsecond}, // 260 us is 5% of 5.2 ms
		{chosen, 1023, 409200 * time.Microsecond},
		{Params{ReportCost: time.Millisecond}, 1, 40 * time.Millisecond},
		{Params{Period: time.Millisecond}, 1023, time.Millisecond},
	} {
		if got := c.p.PeriodFor(c.peers); got != c.want {
			t.Errorf("%+v.PeriodFor(%d) = %v, want %v", c.p, c.peers, got, c.want)
		}
	}
	// The policy reports at the chosen period of the peers it knows.
	s := New("a", Params{})
	for i := range 999 {
		s.Membership(t0, clusterpolicy.MemberEvent{Node: clusterpolicy.NodeID(fmt.Sprint("p", i)), Joined: true})
	}
	if got := s.period(); got != 399600*time.Microsecond {
		t.Fatalf("period among 999 peers: %v", got)
	}
}

func TestParseParams(t *testing.T) {
	p, err := ParseParams("limit=3,period=20ms")
	if err != nil || p != (Params{Limit: 3, Period: 20 * time.Millisecond, ReportCost: DefaultReportCost}) {
		t.Fatalf("%+v, %v", p, err)
	}
	if p, err := ParseParams("cost=50us"); err != nil || p.ReportCost != 50*time.Microsecond {
		t.Fatalf("cost=50us: %+v, %v", p, err)
	}
	if p, _ := ParseParams(""); p != (Params{Limit: DefaultLimit, ReportCost: DefaultReportCost}) {
		t.Fatalf("defaults %+v", p)
	}
	for in, msg := range map[string]string{
		"limit=0":      `limit="0": want a whole number`,
		"period=never": `period="never": want a positive duration`,
		"greed=2":      `unknown balance option "greed=2"`,
		"cost=-1us":    `cost="-1us": want a positive duration`,
	} {
		if _, err := ParseParams(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", in, err, msg)
		}
	}
}

// TestSameEventsSameActions: fed the same events, both balancing policies
// give the same actions in the same order (clusterpolicy.Policy's contract), with
// peers joining in any order; a map's order would break this.
func TestSameEventsSameActions(t *testing.T) {
	names := []clusterpolicy.NodeID{"n3", "n1", "n7", "n2", "n5", "n4", "n6"}
	for _, mk := range []func() clusterpolicy.Policy{
		func() clusterpolicy.Policy { return New("n0", Params{}) },
		func() clusterpolicy.Policy { return NewRate("n0", RateParams{}) },
	} {
		var first []clusterpolicy.Action
		for round := range 5 {
			p := mk()
			for i := range names {
				p.Membership(t0, clusterpolicy.MemberEvent{Node: names[(i+round)%len(names)], Joined: true})
			}
			var got []clusterpolicy.Action
			for _, id := range names {
				got = append(got, p.LoadReport(t0, id, clusterpolicy.Load{Ready: 0, Workers: 1})...)
			}
			got = append(got, p.Tick(t0.Add(time.Millisecond), clusterpolicy.Load{Ready: 40, Workers: 1, Busy: 1, Rate: 1})...)
			if round == 0 {
				first = got
				if len(first) < 3 {
					t.Fatalf("%s: too few actions to compare: %v", p.Name(), first)
				}
			} else if !reflect.DeepEqual(got, first) {
				t.Fatalf("%s: round %d gave %v, round 0 %v", p.Name(), round, got, first)
			}
		}
	}
}

// TestNothingGoesToALeavingPeer: a draining peer takes nothing, so no
// balancing policy gives it a task, however dry it says it is.
func TestNothingGoesToALeavingPeer(t *testing.T) {
	for name, s := range map[string]clusterpolicy.Policy{
		"balance":     New("self", Params{Period: 4 * time.Millisecond}),
		"ratebalance": NewRate("self", RateParams{}),
	} {
		s.Membership(t0, clusterpolicy.MemberEvent{Node: "p", Joined: true})
		s.Membership(t0, clusterpolicy.MemberEvent{Node: "p", Leaving: true})
		as := s.LoadReport(ms(1), "p", clusterpolicy.Load{Workers: 1, Idle: 1})
		as = append(as, s.Tick(ms(8), clusterpolicy.Load{Ready: 50, Workers: 1, Rate: 1, Busy: 1})...)
		for _, a := range as {
			if a.Kind == clusterpolicy.Give {
				t.Errorf("%s gave %d tasks to a draining peer", name, a.Count)
			}
		}
	}
}

// TestWantedWorkIsExposed: both balancing policies keep tasks stealable
// (Advice.Expose) on a fresh job, when a peer reports it has none and when
// this node runs dry, for two periods, and not while every peer has work:
// a push can only move a ready task, never an inlined call.
func TestWantedWorkIsExposed(t *testing.T) {
	period := 4 * time.Millisecond
	policies := map[string]clusterpolicy.Policy{
		"balance":     New("self", Params{Period: period}),
		"ratebalance": NewRate("self", RateParams{MinPeriod: period, MaxPeriod: period}),
	}
	for name, s := range policies {
		s.Membership(t0, clusterpolicy.MemberEvent{Node: "p", Joined: true})
		at := t0
		for _, ev := range []struct {
			what string
			do   func(now time.Time)
		}{
			{"a fresh job", func(now time.Time) { s.JobStarted(now) }},
			{"a dry peer", func(now time.Time) { s.LoadReport(now, "p", clusterpolicy.Load{Workers: 1, Idle: 1}) }},
			{"running dry", func(now time.Time) { s.Hungry(now) }},
		} {
			at = at.Add(10 * period)
			if s.LoadReport(at, "p", clusterpolicy.Load{Ready: 9, Workers: 1}); s.Advice().Expose != 0 {
				t.Fatalf("%s, before %s: Expose %d while the peer has work", name, ev.what, s.Advice().Expose)
			}
			ev.do(at)
			if s.Advice().Expose == 0 {
				t.Errorf("%s: nothing exposed after %s", name, ev.what)
			}
			if s.Tick(at.Add(2*period-time.Millisecond), clusterpolicy.Load{Ready: 3, Workers: 1}); s.Advice().Expose == 0 {
				t.Errorf("%s: the exposure after %s ended within two periods", name, ev.what)
			}
			if s.Tick(at.Add(2*period), clusterpolicy.Load{Ready: 3, Workers: 1}); s.Advice().Expose != 0 {
				t.Errorf("%s: still exposing two periods after %s", name, ev.what)
			}
		}
	}
}
