package fishing

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/xorshift"
)

// Policy must be usable where a node wants a scheduler.
var _ clusterpolicy.Policy = (*Policy)(nil)

// fakeClock is the time the tests feed the policy, moved by hand.
type fakeClock struct{ d time.Duration }

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *fakeClock) now() time.Time          { return epoch.Add(c.d) }
func (c *fakeClock) advance(d time.Duration) { c.d += d }

// testPolicy feeds a policy events at its clock's time, so that the tests
// read as sequences of events.
type testPolicy struct {
	*Policy
	clk *fakeClock
}

func (s testPolicy) StealReply(from clusterpolicy.NodeID, n int) []clusterpolicy.Action {
	return s.Policy.StealReply(s.clk.now(), from, n)
}

func (s testPolicy) LoadReport(from clusterpolicy.NodeID, l clusterpolicy.Load) []clusterpolicy.Action {
	return s.Policy.LoadReport(s.clk.now(), from, l)
}

func (s testPolicy) Membership(ev clusterpolicy.MemberEvent) []clusterpolicy.Action {
	return s.Policy.Membership(s.clk.now(), ev)
}

// newTest makes a policy of node "self" in zone "a" on a fake clock, with
// the given peers (name -> zone) joined.
func newTest(t *testing.T, p Params, peers ...string) (testPolicy, *fakeClock) {
	t.Helper()
	clk := &fakeClock{}
	s := testPolicy{New("self", "a", p), clk}
	for i := 0; i+1 < len(peers); i += 2 {
		if as := s.Membership(clusterpolicy.MemberEvent{Node: clusterpolicy.NodeID(peers[i]), Zone: peers[i+1], Joined: true}); as != nil {
			t.Fatalf("join of %s while not hungry: %v", peers[i], as)
		}
	}
	return s, clk
}

// mustFish: a worker of the node is hungry, and a request goes out.
func mustFish(t *testing.T, s testPolicy) clusterpolicy.NodeID {
	t.Helper()
	if g := s.Advice().HungryAfter; g.After(s.clk.now()) {
		t.Fatalf("advice says wait until %v, at %v", g.Sub(epoch), s.clk.d)
	}
	return one(t, s.Hungry(s.clk.now()))
}

// one checks that as is a single Fish and returns its victim.
func one(t *testing.T, as []clusterpolicy.Action) clusterpolicy.NodeID {
	t.Helper()
	if len(as) != 1 || as[0].Kind != clusterpolicy.Fish {
		t.Fatalf("actions %v, want one Fish", as)
	}
	return as[0].Node
}

// mustPark: a hungry worker sends nothing, and the advice said so.
func mustPark(t *testing.T, s testPolicy) {
	t.Helper()
	if g := s.Advice().HungryAfter; !g.After(s.clk.now()) {
		t.Fatalf("advice says fish now (%v), but nothing to fish", g)
	}
	if as := s.Hungry(s.clk.now()); as != nil {
		t.Fatalf("Hungry = %v, want nothing", as)
	}
}

func TestParseVictim(t *testing.T) {
	for _, v := range []Victim{Random, Load, Zone} {
		got, err := ParseVictim(v.String())
		if err != nil || got != v {
			t.Errorf("ParseVictim(%q) = %v, %v", v.String(), got, err)
		}
		if name := New("n", "", Params{Victim: v}).Name(); name != "fishing:"+v.String() {
			t.Errorf("Name = %q", name)
		}
	}
	_, err := ParseVictim("nearest")
	if err == nil {
		t.Fatal("ParseVictim(nearest) succeeded")
	}
	for _, want := range []string{"random", "load", "zone", "nearest"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestParseParamsZeroMeansNone: an option set to 0 where negative means
// none is none, not the default a zero field takes; an option given twice,
// or a first batch above the largest, is refused.
func TestParseParamsZeroMeansNone(t *testing.T) {
	p, err := ParseParams("expose=0,backoff=0,defer=0")
	if err != nil {
		t.Fatal(err)
	}
	if p.Expose >= 0 || p.RetryBackoff >= 0 || p.DeferFor >= 0 {
		t.Errorf("expose=0,backoff=0,defer=0 became Expose %d, RetryBackoff %v, DeferFor %v: want none (negative)", p.Expose, p.RetryBackoff, p.DeferFor)
	}
	for in, msg := range map[string]string{
		"tasks=1,tasks=2":       "tasks given twice",
		"random,load":           "the victim choice given twice",
		"tasks=10,maxtasks=2":   "tasks=10, maxtasks=2",
		"expose=x":              `expose="x"`,
		"random,defer=soon":     `defer="soon"`,
		"random,unknown=1":      `unknown fishing option "unknown"`,
		"random,tasks=2,tasks=": "tasks given twice",
		"random,":               "an empty option",
	} {
		if _, err := ParseParams(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseParams(%q): %v; want an error mentioning %q", in, err, msg)
		}
	}
}

func TestDefaults(t *testing.T) {
	if got := New("n", "", Params{}).Params(); got != DefaultParams() {
		t.Errorf("zero Params became %+v, want %+v", got, DefaultParams())
	}
	p := New("n", "", Params{RetryBackoff: time.Second, MaxBackoff: time.Millisecond}).Params()
	if p.MaxBackoff != time.Second {
		t.Errorf("MaxBackoff below RetryBackoff not raised: %v", p.MaxBackoff)
	}
	if a := New("n", "", Params{}).Advice(); a != (clusterpolicy.Advice{HungryAfter: clusterpolicy.Never}) {
		t.Errorf("a policy without peers advises %+v, want to wait for an event", a)
	}
}

func TestHungryAsksForTheLargestBatch(t *testing.T) {
	s, _ := newTest(t, Params{TasksPerAnswer: 3, MaxTasksPerAnswer: 5}, "p", "a")
	as := s.Hungry(epoch)
	if len(as) != 1 || as[0] != (clusterpolicy.Action{Kind: clusterpolicy.Fish, Node: "p", Count: 5}) {
		t.Fatalf("Hungry = %v, want Fish p 5 (the lender decides the batch)", as)
	}
	// One request in flight: another hungry worker sends nothing.
	mustPark(t, s)
}

func TestNoPeersParks(t *testing.T) {
	s, _ := newTest(t, Params{})
	mustPark(t, s)
	if as := s.Tick(epoch, clusterpolicy.Load{Workers: 2, Idle: 2}); as != nil {
		t.Fatalf("Tick without peers = %v", as)
	}
	// A peer joining a hungry node is asked at once.
	as := s.Membership(clusterpolicy.MemberEvent{Node: "p", Joined: true})
	if len(as) != 1 || as[0].Kind != clusterpolicy.Fish || as[0].Node != "p" {
		t.Fatalf("join while hungry = %v, want Fish p", as)
	}
}

// counts fishes rounds times, answering each request with a task so that no
// backoff builds up, and counts the victims.
func counts(t *testing.T, s testPolicy, rounds int) map[clusterpolicy.NodeID]int {
	t.Helper()
	c := map[clusterpolicy.NodeID]int{}
	for range rounds {
		v := mustFish(t, s)
		c[v]++
		s.StealReply(v, 1)
	}
	return c
}

// TestInFlightGrowsWithPeers: by default a hungry node asks as many
// peers at once as the square root of their number, rounded; a fixed
// MaxInFlight overrides it; "inflight=auto" is the default.
func TestInFlightGrowsWithPeers(t *testing.T) {
	for _, c := range []struct{ peers, fixed, want int }{
		{1, 0, 1}, {2, 0, 1}, {3, 0, 2}, {6, 0, 2}, {7, 0, 3}, {15, 0, 4}, {63, 0, 8}, {1023, 0, 32},
		{63, 1, 1}, {3, 5, 3},
	} {
		s := New("self", "", Params{MaxInFlight: c.fixed})
		for i := range c.peers {
			s.Membership(epoch, clusterpolicy.MemberEvent{Node: clusterpolicy.NodeID(fmt.Sprint("p", i)), Joined: true})
		}
		asked := map[clusterpolicy.NodeID]bool{}
		for _, a := range s.Hungry(epoch) {
			if a.Kind != clusterpolicy.Fish || asked[a.Node] {
				t.Fatalf("%+v: %+v is not a request to a peer not yet asked", c, a)
			}
			asked[a.Node] = true
		}
		if len(asked) != c.want {
			t.Errorf("%d peers, MaxInFlight %d: %d requests in flight, want %d", c.peers, c.fixed, len(asked), c.want)
		}
	}
	for _, opt := range []string{"", "inflight=auto"} {
		if p, err := ParseParams(opt); err != nil || p.MaxInFlight != 0 {
			t.Errorf("ParseParams(%q) = MaxInFlight %d, %v; want 0 (auto)", opt, p.MaxInFlight, err)
		}
	}
	if _, err := ParseParams("inflight=0"); err == nil {
		t.Error("inflight=0 was taken; want an error that asks for 1 or more, or auto")
	}
}

// TestInFlightFollowsAnswers: a node whose answers keep coming back
// empty (many thieves, nearly nothing to steal) falls back to one
// request in flight; answers with tasks bring the whole count back.
func TestInFlightFollowsAnswers(t *testing.T) {
	s := New("self", "", Params{RetryBackoff: -1}) // no backoff: every peer stays eligible
	for i := range 63 {
		s.Membership(epoch, clusterpolicy.MemberEvent{Node: clusterpolicy.NodeID(fmt.Sprint("p", i)), Joined: true})
	}
	flying := s.Hungry(epoch)
	if len(flying) != 8 {
		t.Fatalf("63 peers, no answer yet: %d requests in flight, want 8", len(flying))
	}
	for range 200 {
		a := flying[0]
		flying = append(flying[1:], s.StealReply(epoch, a.Node, 0)...)
	}
	if len(flying) != 1 {
		t.Fatalf("after 200 refusals: %d requests in flight, want 1", len(flying))
	}
	s.StealReply(epoch, flying[0].Node, 1)
	for range 32 {
		for _, a := range s.Hungry(epoch) {
			s.StealReply(epoch, a.Node, 1)
		}
	}
	// An answer to no request in flight counts for nothing.
	for i := range 64 {
		s.StealReply(epoch, clusterpolicy.NodeID(fmt.Sprint("p", i%63)), 0)
	}
	if as := s.Hungry(epoch); len(as) != 8 {
		t.Fatalf("after answers with tasks: %d requests in flight, want 8 again", len(as))
	}
}

func TestRandomVictims(t *testing.T) {
	s, _ := newTest(t, Params{MaxInFlight: 1}, "p", "a", "q", "a", "r", "b")
	c := counts(t, s, 3000)
	for _, v := range []clusterpolicy.NodeID{"p", "q", "r"} {
		if c[v] < 800 || c[v] > 1200 {
			t.Errorf("victim %s chosen %d times of 3000: %v", v, c[v], c)
		}
	}
}

func TestLoadVictims(t *testing.T) {
	s, clk := newTest(t, Params{Victim: Load, MaxInFlight: 1}, "p", "a", "q", "a", "r", "a", "z", "a")
	// Nobody reported: random among all.
	if c := counts(t, s, 400); len(c) != 4 {
		t.Errorf("no reports: victims %v, want all four", c)
	}
	s.LoadReport("p", clusterpolicy.Load{Ready: 3})
	s.LoadReport("q", clusterpolicy.Load{Ready: 7})
	s.LoadReport("r", clusterpolicy.Load{Ready: 7})
	s.LoadReport("z", clusterpolicy.Load{Ready: 0})
	s.LoadReport("stranger", clusterpolicy.Load{Ready: 99}) // not a member: ignored
	c := counts(t, s, 400)
	if c["q"] == 0 || c["r"] == 0 || c["q"]+c["r"] != 400 {
		t.Errorf("q and r tie at 7: victims %v", c)
	}
	// The best in backoff: the next best.
	s.LoadReport("r", clusterpolicy.Load{Ready: 0})
	v := mustFish(t, s)
	if v != "q" {
		t.Fatalf("victim %s, want q", v)
	}
	// A refusal: q in backoff, and known to have nothing. The hungry node
	// asks the next at once.
	if v := one(t, s.StealReply("q", 0)); v != "p" {
		t.Fatalf("victim %s, want p (q in backoff, r and z empty)", v)
	}
	// p refuses too. Nobody reports work, but r and z reported nothing
	// ready without refusing, so they are not in back-off: a stale report
	// must not stop the fishing.
	v = one(t, s.StealReply("p", 0))
	if v != "r" && v != "z" {
		t.Fatalf("victim %s after p refused, want r or z (reports are hints)", v)
	}
	other := map[clusterpolicy.NodeID]clusterpolicy.NodeID{"r": "z", "z": "r"}[v]
	if w := one(t, s.StealReply(v, 0)); w != other {
		t.Fatalf("victim %s after %s refused, want %s", w, v, other)
	}
	if as := s.StealReply(other, 0); as != nil {
		t.Fatalf("after every peer refused: %v", as)
	}
	// Every peer refused and is in back-off: no request at all.
	mustPark(t, s)
	// An unreported peer is preferred to those known to be empty.
	if v := one(t, s.Membership(clusterpolicy.MemberEvent{Node: "new", Zone: "a", Joined: true})); v != "new" {
		t.Fatalf("victim %s, want new", v)
	}
	s.StealReply("new", 1)
	// Once the back-offs are over, a report of work wins again.
	clk.advance(time.Second)
	s.LoadReport("z", clusterpolicy.Load{Ready: 1})
	if v := mustFish(t, s); v != "z" {
		t.Fatalf("victim %s, want z (its new report shows work)", v)
	}
}

func TestZoneVictims(t *testing.T) {
	s, clk := newTest(t, Params{Victim: Zone, MaxInFlight: 1}, "a1", "a", "a2", "a", "b1", "b", "b2", "b")
	c := counts(t, s, 400)
	if c["a1"] == 0 || c["a2"] == 0 || c["a1"]+c["a2"] != 400 {
		t.Errorf("own zone first: victims %v", c)
	}
	// Own zone in backoff: another zone.
	v1 := mustFish(t, s)
	v2 := one(t, s.StealReply(v1, 0))
	if v2[0] != 'a' || v2 == v1 {
		t.Fatalf("victim %s after %s refused, want the other of the zone", v2, v1)
	}
	v := one(t, s.StealReply(v2, 0))
	if v != "b1" && v != "b2" {
		t.Fatalf("victim %s, want another zone", v)
	}
	s.StealReply(v, 1)
	clk.advance(DefaultRetryBackoff)
	if v := mustFish(t, s); v[0] != 'a' {
		t.Fatalf("victim %s after the backoff, want own zone", v)
	}
}

func TestZoneOneCrossRequest(t *testing.T) {
	s, _ := newTest(t, Params{Victim: Zone, MaxInFlight: 4}, "a1", "a", "a2", "a", "b1", "b", "b2", "b", "c1", "c")
	// Satin's CRS: local requests, plus one wide-area request alongside.
	// A hungry node fills its free slots at once.
	var got []clusterpolicy.NodeID
	for _, a := range s.Hungry(epoch) {
		got = append(got, a.Node)
	}
	if len(got) != 3 || got[0][0] != 'a' || got[1][0] == 'a' || got[2][0] != 'a' || got[0] == got[2] {
		t.Fatalf("victims %v, want own zone, another zone, own zone", got)
	}
	mustPark(t, s) // slots left, but only cross-zone peers, and one is in flight
	if st := s.Stats(); st.InFlight != 3 {
		t.Fatalf("in flight %d, want 3", st.InFlight)
	}
	if v := one(t, s.StealReply(got[1], 0)); v[0] == 'a' || v == got[1] {
		t.Fatalf("victim %s, want the other remote peer", v)
	}
	mustPark(t, s)

	// Without own-zone peers, still one wide-area request at a time.
	s2, _ := newTest(t, Params{Victim: Zone, MaxInFlight: 4}, "b1", "b", "b2", "b")
	mustFish(t, s2)
	mustPark(t, s2)
}

func TestBackoff(t *testing.T) {
	s, clk := newTest(t, Params{RetryBackoff: 5 * time.Millisecond, MaxBackoff: 200 * time.Millisecond}, "p", "a")
	pr := s.peers[0]
	want := []time.Duration{5, 10, 20, 40, 80, 160, 200, 200}
	for i, w := range want {
		w *= time.Millisecond
		mustFish(t, s)
		s.StealReply("p", 0)
		if pr.backoff != w {
			t.Fatalf("refusal %d: backoff %v, want %v", i+1, pr.backoff, w)
		}
		clk.advance(w - time.Microsecond)
		mustPark(t, s)
		clk.advance(time.Microsecond)
	}
	// Success resets: the next refusal starts over.
	mustFish(t, s)
	s.StealReply("p", 2)
	if pr.backoff != 0 {
		t.Fatalf("backoff %v after success", pr.backoff)
	}
	mustFish(t, s)
	s.StealReply("p", 0)
	if pr.backoff != 5*time.Millisecond {
		t.Fatalf("backoff %v after success and refusal, want 5ms", pr.backoff)
	}
	// Another peer is asked while p backs off.
	if v := one(t, s.Membership(clusterpolicy.MemberEvent{Node: "q", Zone: "a", Joined: true})); v != "q" {
		t.Fatalf("victim %s, want q", v)
	}
	// No backoff at all.
	s2, _ := newTest(t, Params{RetryBackoff: -1}, "p", "a")
	mustFish(t, s2)
	if v := one(t, s2.StealReply("p", 0)); v != "p" {
		t.Fatalf("victim %s", v)
	}
}

func TestInFlightLimit(t *testing.T) {
	s, _ := newTest(t, Params{MaxInFlight: 2}, "p", "a", "q", "a", "r", "a")
	as := s.Hungry(epoch)
	if len(as) != 2 {
		t.Fatalf("a hungry node with 2 slots sent %v", as)
	}
	v1, v2 := as[0].Node, as[1].Node
	if v1 == v2 {
		t.Fatalf("two requests to %s", v1)
	}
	mustPark(t, s)
	s.StealReply(v1, 1)
	v3 := mustFish(t, s)
	if v3 == v2 {
		t.Fatalf("second request to %s, which has one in flight", v3)
	}
	mustPark(t, s)
	// A reply from a peer with nothing in flight frees nothing.
	s.StealReply("zz", 0)
	mustPark(t, s)
	if st := s.Stats(); st.InFlight != 2 || st.Requests != 3 {
		t.Fatalf("stats %+v", st)
	}
}

func TestPeerLeaves(t *testing.T) {
	s, _ := newTest(t, Params{}, "p", "a", "q", "b")
	v := mustFish(t, s)
	other := clusterpolicy.NodeID("q")
	if v == "q" {
		other = "p"
	}
	as := s.Membership(clusterpolicy.MemberEvent{Node: v})
	// The node is hungry (it fished), so the freed slot is used at once.
	if len(as) != 1 || as[0].Kind != clusterpolicy.Fish || as[0].Node != other {
		t.Fatalf("leave of %s = %v, want Fish %s", v, as, other)
	}
	st := s.Stats()
	if st.Dropped != 1 || st.InFlight != 1 {
		t.Fatalf("stats %+v", st)
	}
	// A late reply from the departed peer changes nothing.
	s.StealReply(v, 0)
	if s.Stats().InFlight != 1 {
		t.Fatal("late reply of a departed peer freed a slot")
	}
	s.Membership(clusterpolicy.MemberEvent{Node: other})
	if len(s.peers) != 0 || len(s.index) != 0 || s.Stats().InFlight != 0 {
		t.Fatalf("peers %v in flight %d", s.index, s.Stats().InFlight)
	}
	mustPark(t, s)
	// Events about self are ignored.
	s.Membership(clusterpolicy.MemberEvent{Node: "self", Joined: true})
	mustPark(t, s)
	// A rejoin with a new zone moves the in-flight cross-zone count.
	one(t, s.Membership(clusterpolicy.MemberEvent{Node: "x", Zone: "b", Joined: true}))
	s.StealReply("x", 1)
	mustFish(t, s)
	if s.cross != 1 {
		t.Fatalf("cross %d", s.cross)
	}
	s.Membership(clusterpolicy.MemberEvent{Node: "x", Zone: "a", Joined: true})
	if s.cross != 0 || len(s.peers) != 1 || !s.peers[0].same {
		t.Fatalf("cross %d peers %v", s.cross, s.peers)
	}
}

func TestTimeout(t *testing.T) {
	s, clk := newTest(t, Params{}, "p", "a", "q", "a")
	v := mustFish(t, s)
	clk.advance(DefaultReplyTimeout - time.Millisecond)
	if as := s.Tick(clk.now(), clusterpolicy.Load{}); as != nil {
		t.Fatalf("Tick before the timeout = %v", as)
	}
	if s.Stats().InFlight != 1 {
		t.Fatal("request forgotten early")
	}
	clk.advance(time.Millisecond)
	// Zero Load: nothing said about hunger; the node fished, so it is
	// hungry, and asks the other peer.
	as := s.Tick(clk.now(), clusterpolicy.Load{})
	if len(as) != 1 || as[0].Kind != clusterpolicy.Fish || as[0].Node == v {
		t.Fatalf("Tick at the timeout = %v, want Fish to the other peer", as)
	}
	st := s.Stats()
	if st.Timeouts != 1 || st.InFlight != 1 {
		t.Fatalf("stats %+v", st)
	}
	if s.peers[s.index[v]].backoff != DefaultRetryBackoff {
		t.Fatal("a timeout does not back off")
	}
	// The late reply: tasks are welcome, the slot was already freed.
	s.StealReply(v, 1)
	if s.Stats().InFlight != 1 {
		t.Fatal("late reply freed a slot twice")
	}
}

func TestHungry(t *testing.T) {
	s, clk := newTest(t, Params{}, "p", "a", "q", "a")
	// Not hungry: events send nothing.
	if as := s.Tick(clk.now(), clusterpolicy.Load{Workers: 1, Ready: 0, Idle: 0}); as != nil {
		t.Fatalf("busy Tick = %v", as)
	}
	// Hungry by Tick: all slots filled.
	as := s.Tick(clk.now(), clusterpolicy.Load{Workers: 1, Idle: 1})
	if len(as) != 1 || as[0].Kind != clusterpolicy.Fish {
		t.Fatalf("idle Tick = %v", as)
	}
	// A refusal sends the next request at once.
	as2 := s.StealReply(as[0].Node, 0)
	if len(as2) != 1 || as2[0].Node == as[0].Node {
		t.Fatalf("after refusal = %v, want Fish to the other peer", as2)
	}
	// Both in backoff: nothing, until a Tick after it expires.
	if as := s.StealReply(as2[0].Node, 0); as != nil {
		t.Fatalf("after second refusal = %v", as)
	}
	if as := s.Tick(clk.now(), clusterpolicy.Load{Workers: 1, Idle: 1}); as != nil {
		t.Fatalf("Tick in backoff = %v", as)
	}
	clk.advance(DefaultRetryBackoff)
	if as := s.Tick(clk.now(), clusterpolicy.Load{Workers: 1, Idle: 1}); len(as) != 1 {
		t.Fatalf("Tick after backoff = %v", as)
	}
	// Success ends the hunger.
	s.StealReply(s.peers[0].id, 1)
	s.StealReply(s.peers[1].id, 1)
	if as := s.Tick(clk.now(), clusterpolicy.Load{}); as != nil {
		t.Fatalf("Tick after success = %v", as)
	}
}

func TestStealRequest(t *testing.T) {
	for _, c := range []struct {
		tpa, minReady, wantCap, ready, want int
	}{
		{1, 1, 99, 0, 0},
		{1, 1, 99, 1, 1},
		{1, 1, 99, 50, 1},
		{4, 1, 99, 1, 1},
		{4, 1, 99, 3, 2},
		{4, 1, 99, 7, 4},
		{4, 1, 99, 100, 4},
		{4, 1, 2, 100, 2}, // the asker wants fewer
		{4, 1, 0, 100, 1}, // a zero want counts as one
		{1, 3, 99, 2, 0},
		{1, 3, 99, 3, 1},
		{2, 0, 99, 0, 0},
	} {
		s := New("self", "", Params{TasksPerAnswer: c.tpa, MinReady: c.minReady, DeferFor: -1})
		a := s.StealRequest(epoch, "p", c.wantCap, atWork(c.ready))
		want := clusterpolicy.Action{Kind: clusterpolicy.Give, Node: "p", Count: c.want}
		if c.want == 0 {
			want = clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: "p"}
		}
		if a != want {
			t.Errorf("%+v: StealRequest = %+v, want %+v", c, a, want)
		}
	}
}

// atWork is the load of a node of one worker, at work, with ready tasks.
func atWork(ready int) clusterpolicy.Load { return clusterpolicy.Load{Ready: ready, Workers: 1} }

// TestWaitingNodeRefusesAtOnce: a request that finds nothing to lend is
// held only while a worker of the node is at work and may push a task; a
// node whose workers all wait refuses it at once.
func TestWaitingNodeRefusesAtOnce(t *testing.T) {
	for _, c := range []struct {
		self clusterpolicy.Load
		want clusterpolicy.ActionKind
	}{
		{clusterpolicy.Load{Workers: 2, Idle: 2}, clusterpolicy.Refuse},
		{clusterpolicy.Load{Workers: 2, Idle: 1}, clusterpolicy.Defer},
		{clusterpolicy.Load{Workers: 1}, clusterpolicy.Defer},
		{clusterpolicy.Load{Workers: 1, Idle: 1, Ready: 1}, clusterpolicy.Give},
	} {
		s := New("self", "", Params{DeferFor: 3 * time.Millisecond})
		if a := s.StealRequest(epoch, "p", 1, c.self); a.Kind != c.want || a.Node != "p" {
			t.Errorf("load %+v: StealRequest = %+v, want %v", c.self, a, c.want)
		}
		if c.want == clusterpolicy.Refuse && (s.Advice().Deferred != 0 || s.Stats().Refused != 1) {
			t.Errorf("load %+v: advice %+v, stats %+v: a refusal holds nothing and is counted", c.self, s.Advice(), s.Stats())
		}
	}
}

// TestDeferredAnswer: a request that finds nothing to lend is held, then
// answered from the next push, oldest first, one request per peer; one
// held for DeferFor is refused on a tick; a peer that leaves is forgotten.
func TestDeferredAnswer(t *testing.T) {
	s := New("self", "", Params{TasksPerAnswer: 2, DeferFor: 3 * time.Millisecond})
	for _, p := range []clusterpolicy.NodeID{"p", "q", "r"} {
		if a := s.StealRequest(epoch, p, 2, atWork(0)); a != (clusterpolicy.Action{Kind: clusterpolicy.Defer, Node: p}) {
			t.Fatalf("StealRequest with nothing ready = %+v, want Defer", a)
		}
	}
	s.StealRequest(epoch, "p", 2, atWork(0)) // p asks again: still one request of p
	if d := s.Advice().Deferred; d != 3 {
		t.Fatalf("Deferred %d, want 3", d)
	}
	s.Membership(epoch, clusterpolicy.MemberEvent{Node: "r", Joined: true})
	s.Membership(epoch, clusterpolicy.MemberEvent{Node: "r"}) // r leaves
	as := s.Pushed(epoch.Add(time.Millisecond), 3)
	want := []clusterpolicy.Action{{Kind: clusterpolicy.Give, Node: "q", Count: 2}}
	if !reflect.DeepEqual(as, want) {
		t.Fatalf("Pushed with 3 ready = %v, want %v (q is the oldest now, and 3 ready lend 2)", as, want)
	}
	if as := s.Pushed(epoch.Add(time.Millisecond), 0); as != nil {
		t.Fatalf("Pushed with nothing ready = %v", as)
	}
	as = s.Tick(epoch.Add(3*time.Millisecond), clusterpolicy.Load{Workers: 1})
	if want := []clusterpolicy.Action{{Kind: clusterpolicy.Refuse, Node: "p"}}; !reflect.DeepEqual(as, want) {
		t.Fatalf("Tick after DeferFor = %v, want %v", as, want)
	}
	if st := s.Stats(); st.Deferred != 4 || st.Lent != 1 || st.Refused != 1 || s.Advice().Deferred != 0 {
		t.Fatalf("stats %+v, advice %+v", st, s.Advice())
	}
}

// TestBatchAdapts: a peer that comes back quickly for more is lent twice
// as much each time, up to MaxTasksPerAnswer; one that stays away gets
// half; the exposed tasks grow with the batch; and a borrower asks again
// when half of its last batch is left.
func TestBatchAdapts(t *testing.T) {
	p := Params{TasksPerAnswer: 1, MaxTasksPerAnswer: 8, QuickReturn: 5 * time.Millisecond, Expose: 4}
	s := New("self", "", p)
	now := epoch
	var got []int
	for range 5 {
		got = append(got, s.StealRequest(now, "p", 100, atWork(1000)).Count)
		now = now.Add(time.Millisecond)
	}
	if want := []int{1, 2, 4, 8, 8}; !reflect.DeepEqual(got, want) {
		t.Fatalf("batches %v for quick returns, want %v", got, want)
	}
	if e := s.Advice().Expose; e != 64 {
		t.Fatalf("Expose %d with batches of 8, want 64", e)
	}
	// Back after a long time: half.
	if n := s.StealRequest(now.Add(time.Second), "p", 100, atWork(1000)).Count; n != 4 {
		t.Fatalf("batch %d after a long absence, want 4", n)
	}
	// Another peer starts at TasksPerAnswer; a small want caps the batch.
	if n := s.StealRequest(now, "q", 100, atWork(1000)).Count; n != 1 {
		t.Fatalf("a new peer's batch %d, want 1", n)
	}
	if n := s.StealRequest(now.Add(time.Second), "p", 2, atWork(1000)).Count; n != 2 {
		t.Fatalf("batch %d for a want of 2", n)
	}
	// The borrower's side: half of the last batch in reserve.
	b := New("b", "", p)
	b.Membership(epoch, clusterpolicy.MemberEvent{Node: "p", Joined: true})
	b.Hungry(epoch)
	b.StealReply(epoch, "p", 6)
	if r := b.Advice().Reserve; r != 3 {
		t.Fatalf("Reserve %d after 6 tasks came, want 3", r)
	}
}

// TestDemandExposes: a steal request, answered or refused, makes the node
// keep Expose more tasks stealable for DemandHold, and no longer.
func TestDemandExposes(t *testing.T) {
	s := New("self", "", Params{Expose: 20, DemandHold: 10 * time.Millisecond})
	if e := s.Advice().Expose; e != 0 {
		t.Fatalf("Expose %d before any request", e)
	}
	s.StealRequest(epoch, "p", 1, atWork(0))
	if e := s.Advice().Expose; e != 20 {
		t.Fatalf("Expose %d after a refused request, want 20", e)
	}
	s.Tick(epoch.Add(9*time.Millisecond), clusterpolicy.Load{Workers: 1})
	if e := s.Advice().Expose; e != 20 {
		t.Fatalf("Expose %d within the hold, want 20", e)
	}
	s.Tick(epoch.Add(10*time.Millisecond), clusterpolicy.Load{Workers: 1})
	if e := s.Advice().Expose; e != 0 {
		t.Fatalf("Expose %d after the hold, want 0", e)
	}
	if e := New("self", "", Params{Expose: -1}); e.Params().Expose != -1 {
		t.Fatal("a negative Expose (none) was replaced")
	} else if e.StealRequest(epoch, "p", 1, atWork(3)); e.Advice().Expose != 0 {
		t.Fatalf("Expose -1 exposes %d", e.Advice().Expose)
	}
}

// TestScarceWorkHoldsDemand: a fresh job, running dry, borrowing and a
// peer joining each keep Expose for DemandHold, as a request does: the work
// the node splits next should not be locked in inlined calls while others
// starve.
func TestScarceWorkHoldsDemand(t *testing.T) {
	const hold = 10 * time.Millisecond
	s := New("self", "", Params{Expose: 20, DemandHold: hold})
	s.Membership(epoch, clusterpolicy.MemberEvent{Node: "p", Joined: true})
	at := epoch
	for _, ev := range []struct {
		name string
		do   func(now time.Time)
	}{
		{"a fresh job", func(now time.Time) { s.JobStarted(now) }},
		{"running dry", func(now time.Time) { s.Hungry(now) }},
		{"borrowing", func(now time.Time) { s.StealReply(now, "p", 2) }},
		{"a peer joining", func(now time.Time) { s.Membership(now, clusterpolicy.MemberEvent{Node: "q", Joined: true}) }},
	} {
		at = at.Add(2 * hold)
		if s.Tick(at, clusterpolicy.Load{Workers: 1}); s.Advice().Expose != 0 {
			t.Fatalf("before %s: Expose %d, want 0", ev.name, s.Advice().Expose)
		}
		ev.do(at)
		if e := s.Advice().Expose; e != 20 {
			t.Fatalf("after %s: Expose %d, want 20", ev.name, e)
		}
		if s.Tick(at.Add(hold-time.Millisecond), clusterpolicy.Load{Workers: 1}); s.Advice().Expose != 20 {
			t.Fatalf("within the hold after %s: Expose %d, want 20", ev.name, s.Advice().Expose)
		}
	}
}

// TestLeavingPeerIsStillAsked: a peer that drains still lends what it
// holds, so Fishing keeps it among its victims until it has left.
func TestLeavingPeerIsStillAsked(t *testing.T) {
	s := New("self", "", Params{})
	s.Membership(epoch, clusterpolicy.MemberEvent{Node: "p", Joined: true})
	s.Membership(epoch, clusterpolicy.MemberEvent{Node: "p", Leaving: true})
	as := s.Hungry(epoch)
	if len(as) != 1 || as[0].Kind != clusterpolicy.Fish || as[0].Node != "p" {
		t.Fatalf("hungry beside a draining peer: %v, want to fish it", as)
	}
}

// TestHungryAfterIsTheEarliestBackoff: with every peer backing off, the
// advice names the earliest time one may be asked again, and a Hungry
// event then sends a request.
func TestHungryAfterIsTheEarliestBackoff(t *testing.T) {
	s, clk := newTest(t, Params{RetryBackoff: 4 * time.Millisecond, MaxBackoff: 64 * time.Millisecond}, "p", "a", "q", "a")
	v := mustFish(t, s)
	clk.advance(time.Millisecond)
	w := one(t, s.StealReply(v, 0)) // v backs off until 5 ms
	s.StealReply(w, 0)              // w until 5 ms too
	if got := s.Advice().HungryAfter.Sub(epoch); got != 5*time.Millisecond {
		t.Fatalf("HungryAfter %v, want 5ms", got)
	}
	clk.advance(4 * time.Millisecond)
	mustFish(t, s)
}

// TestEventSequences is a property test: random sequences of events keep
// the policy's invariants (requests in flight within MaxInFlight, each to a
// distinct live peer, the counters adding up, prefetches among them), and
// the same sequence fed to a fresh policy gives the same actions.
func TestEventSequences(t *testing.T) {
	for seed := range uint64(200) {
		a := runEvents(t, seed)
		if b := runEvents(t, seed); !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: two runs of the same events differ", seed)
		}
	}
}

func runEvents(t *testing.T, seed uint64) []clusterpolicy.Action {
	rng := xorshift.Seed(seed)
	names := []clusterpolicy.NodeID{"p", "q", "r", "s"}
	p := Params{Victim: Victim(rng.Below(3)), MaxInFlight: 1 + rng.Below(3), TasksPerAnswer: 1 + rng.Below(4), LowWater: rng.Below(4), Lend: []Lending{LendAdaptive, LendHalf}[rng.Below(2)]}
	s := New("self", "a", p)
	now := epoch
	var all []clusterpolicy.Action
	flying := map[clusterpolicy.NodeID]bool{}
	live := map[clusterpolicy.NodeID]bool{}
	record := func(as []clusterpolicy.Action) {
		for _, a := range as {
			if a.Kind == clusterpolicy.Give || a.Kind == clusterpolicy.Refuse {
				all = append(all, a) // a deferred request answered
				continue
			}
			if a.Kind != clusterpolicy.Fish {
				t.Fatalf("seed %d: action %+v from a fishing event", seed, a)
			}
			if flying[a.Node] || !live[a.Node] {
				t.Fatalf("seed %d: request to %s (in flight %v, live %v)", seed, a.Node, flying[a.Node], live[a.Node])
			}
			flying[a.Node] = true
		}
		all = append(all, as...)
		if len(flying) > s.Params().MaxInFlight || s.Stats().InFlight != len(flying) {
			t.Fatalf("seed %d: %d in flight by the actions, %d by the policy, max %d", seed, len(flying), s.Stats().InFlight, s.Params().MaxInFlight)
		}
	}
	for range 300 {
		now = now.Add(time.Duration(rng.Below(2000)) * time.Microsecond)
		peer := names[rng.Below(len(names))]
		switch rng.Below(7) {
		case 6:
			record(s.Pushed(now, rng.Below(4)))
		case 0:
			record(s.Hungry(now))
		case 1:
			joined := rng.Below(3) > 0
			if !joined {
				delete(flying, peer)
			}
			live[peer] = joined
			record(s.Membership(now, clusterpolicy.MemberEvent{Node: peer, Zone: string(rune('a' + rng.Below(2))), Joined: joined}))
		case 2:
			if flying[peer] {
				delete(flying, peer)
				record(s.StealReply(now, peer, rng.Below(3)))
			}
		case 3:
			record(s.LoadReport(now, peer, clusterpolicy.Load{Ready: rng.Below(10)}))
		case 4:
			a := s.StealRequest(now, peer, 1+rng.Below(8), clusterpolicy.Load{Ready: rng.Below(20), Workers: 2, Idle: rng.Below(3)})
			if a.Kind == clusterpolicy.Give && (a.Count < 1 || a.Node != peer) {
				t.Fatalf("seed %d: %+v", seed, a)
			}
			all = append(all, a)
		case 5:
			// Timeouts free slots without a reply.
			as := s.Tick(now, clusterpolicy.Load{Workers: 2, Idle: rng.Below(3), Ready: rng.Below(2)})
			for pr := range flying {
				if i, ok := s.index[pr]; ok && !s.peers[i].inFlight {
					delete(flying, pr)
				}
			}
			record(as)
		}
	}
	st := s.Stats()
	if st.Successes+st.Refusals+st.Timeouts+st.Dropped < st.Requests-int64(st.InFlight) {
		t.Fatalf("seed %d: counters do not add up: %+v", seed, st)
	}
	if st.Prefetches > st.Requests || st.Prefetched > st.TasksIn || st.RanDry > st.Prefetches || s.prefetching > st.InFlight || s.prefetching < 0 {
		t.Fatalf("seed %d: prefetch counters do not add up (%d in flight): %+v", seed, s.prefetching, st)
	}
	return all
}
