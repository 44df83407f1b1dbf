package fishing

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/sched"
)

// Policy must be usable where the runtime wants a scheduler.
var _ sched.Policy = (*Policy)(nil)

// fakeClock is a clock tests move by hand; Idle may read it concurrently.
type fakeClock struct{ ns atomic.Int64 }

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *fakeClock) now() time.Time          { return epoch.Add(time.Duration(c.ns.Load())) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// newTest makes a policy of node "self" in zone "a" on a fake clock, with
// the given peers (name -> zone) joined.
func newTest(t *testing.T, workers int, p Params, peers ...string) (*Policy, *fakeClock) {
	t.Helper()
	clk := &fakeClock{}
	s := New("self", "a", workers, p)
	s.SetClock(clk.now)
	for i := 0; i+1 < len(peers); i += 2 {
		if as := s.Membership(sched.MemberEvent{Node: sched.NodeID(peers[i]), Zone: peers[i+1], Joined: true}); as != nil {
			t.Fatalf("join of %s while not hungry: %v", peers[i], as)
		}
	}
	return s, clk
}

// fish calls Idle past the local attempts and returns the action.
func fish(s *Policy) sched.Action { return s.Idle(0, s.localTries) }

func mustFish(t *testing.T, s *Policy) sched.NodeID {
	t.Helper()
	a := fish(s)
	if a.Kind != sched.Fish {
		t.Fatalf("Idle = %+v, want Fish", a)
	}
	return a.Node
}

// one checks that as is a single Fish and returns its victim.
func one(t *testing.T, as []sched.Action) sched.NodeID {
	t.Helper()
	if len(as) != 1 || as[0].Kind != sched.Fish {
		t.Fatalf("actions %v, want one Fish", as)
	}
	return as[0].Node
}

func mustPark(t *testing.T, s *Policy) {
	t.Helper()
	if a := fish(s); a.Kind != sched.Park {
		t.Fatalf("Idle = %+v, want Park", a)
	}
}

func TestParseVictim(t *testing.T) {
	for _, v := range []Victim{Random, Load, Zone} {
		got, err := ParseVictim(v.String())
		if err != nil || got != v {
			t.Errorf("ParseVictim(%q) = %v, %v", v.String(), got, err)
		}
		if name := New("n", "", 2, Params{Victim: v}).Name(); name != "fishing:"+v.String() {
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

func TestDefaults(t *testing.T) {
	if got := New("n", "", 1, Params{}).Params(); got != DefaultParams() {
		t.Errorf("zero Params became %+v, want %+v", got, DefaultParams())
	}
	p := New("n", "", 1, Params{RetryBackoff: time.Second, MaxBackoff: time.Millisecond}).Params()
	if p.MaxBackoff != time.Second {
		t.Errorf("MaxBackoff below RetryBackoff not raised: %v", p.MaxBackoff)
	}
	s := New("n", "", 1, Params{})
	if s.WantsSpawns() || s.Spawned(3) != nil {
		t.Error("fishing defers no request")
	}
}

func TestIdleLocalFirst(t *testing.T) {
	s, _ := newTest(t, 4, Params{}, "p", "a")
	for w := range 4 {
		for attempt := range 6 {
			a := s.Idle(w, attempt)
			if a.Kind != sched.StealLocal || a.Worker == w || a.Worker < 0 || a.Worker >= 4 {
				t.Fatalf("Idle(%d, %d) = %+v, want a local steal from another worker", w, attempt, a)
			}
		}
	}
	a := s.Idle(2, 6)
	if a.Kind != sched.Fish || a.Node != "p" || a.Count != 1 {
		t.Fatalf("Idle after the local attempts = %+v, want Fish p 1", a)
	}
	if a := s.Idle(3, 6); a.Kind != sched.Park {
		t.Fatalf("second fisher = %+v, want Park (one request in flight)", a)
	}
	// A single worker fishes at once.
	one, _ := newTest(t, 1, Params{TasksPerAnswer: 3}, "p", "a")
	if a := one.Idle(0, 0); a.Kind != sched.Fish || a.Count != 3 {
		t.Fatalf("one worker: Idle = %+v, want Fish of 3", a)
	}
}

func TestNoPeersParks(t *testing.T) {
	s, _ := newTest(t, 2, Params{})
	mustPark(t, s)
	if as := s.Tick(epoch, sched.Load{Workers: 2, Idle: 2}); as != nil {
		t.Fatalf("Tick without peers = %v", as)
	}
	// A peer joining a hungry node is asked at once.
	as := s.Membership(sched.MemberEvent{Node: "p", Joined: true})
	if len(as) != 1 || as[0].Kind != sched.Fish || as[0].Node != "p" {
		t.Fatalf("join while hungry = %v, want Fish p", as)
	}
}

// counts fishes rounds times, answering each request with a task so that no
// backoff builds up, and counts the victims.
func counts(t *testing.T, s *Policy, rounds int) map[sched.NodeID]int {
	t.Helper()
	c := map[sched.NodeID]int{}
	for range rounds {
		v := mustFish(t, s)
		c[v]++
		s.StealReply(v, 1)
	}
	return c
}

func TestRandomVictims(t *testing.T) {
	s, _ := newTest(t, 1, Params{}, "p", "a", "q", "a", "r", "b")
	c := counts(t, s, 3000)
	for _, v := range []sched.NodeID{"p", "q", "r"} {
		if c[v] < 800 || c[v] > 1200 {
			t.Errorf("victim %s chosen %d times of 3000: %v", v, c[v], c)
		}
	}
}

func TestLoadVictims(t *testing.T) {
	s, clk := newTest(t, 1, Params{Victim: Load}, "p", "a", "q", "a", "r", "a", "z", "a")
	// Nobody reported: random among all.
	if c := counts(t, s, 400); len(c) != 4 {
		t.Errorf("no reports: victims %v, want all four", c)
	}
	s.LoadReport("p", sched.Load{Ready: 3})
	s.LoadReport("q", sched.Load{Ready: 7})
	s.LoadReport("r", sched.Load{Ready: 7})
	s.LoadReport("z", sched.Load{Ready: 0})
	s.LoadReport("stranger", sched.Load{Ready: 99}) // not a member: ignored
	c := counts(t, s, 400)
	if c["q"] == 0 || c["r"] == 0 || c["q"]+c["r"] != 400 {
		t.Errorf("q and r tie at 7: victims %v", c)
	}
	// The best in backoff: the next best.
	s.LoadReport("r", sched.Load{Ready: 0})
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
	other := map[sched.NodeID]sched.NodeID{"r": "z", "z": "r"}[v]
	if w := one(t, s.StealReply(v, 0)); w != other {
		t.Fatalf("victim %s after %s refused, want %s", w, v, other)
	}
	if as := s.StealReply(other, 0); as != nil {
		t.Fatalf("after every peer refused: %v", as)
	}
	// Every peer refused and is in back-off: no request at all.
	mustPark(t, s)
	// An unreported peer is preferred to those known to be empty.
	if v := one(t, s.Membership(sched.MemberEvent{Node: "new", Zone: "a", Joined: true})); v != "new" {
		t.Fatalf("victim %s, want new", v)
	}
	s.StealReply("new", 1)
	// Once the back-offs are over, a report of work wins again.
	clk.advance(time.Second)
	s.LoadReport("z", sched.Load{Ready: 1})
	if v := mustFish(t, s); v != "z" {
		t.Fatalf("victim %s, want z (its new report shows work)", v)
	}
}

func TestZoneVictims(t *testing.T) {
	s, clk := newTest(t, 1, Params{Victim: Zone}, "a1", "a", "a2", "a", "b1", "b", "b2", "b")
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
	s, _ := newTest(t, 1, Params{Victim: Zone, MaxInFlight: 4}, "a1", "a", "a2", "a", "b1", "b", "b2", "b", "c1", "c")
	// Satin's CRS: local requests, plus one wide-area request alongside.
	got := []sched.NodeID{mustFish(t, s), mustFish(t, s), mustFish(t, s)}
	if got[0][0] != 'a' || got[1][0] == 'a' || got[2][0] != 'a' || got[0] == got[2] {
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
	s2, _ := newTest(t, 1, Params{Victim: Zone, MaxInFlight: 4}, "b1", "b", "b2", "b")
	mustFish(t, s2)
	mustPark(t, s2)
}

func TestBackoff(t *testing.T) {
	s, clk := newTest(t, 1, Params{RetryBackoff: 5 * time.Millisecond, MaxBackoff: 200 * time.Millisecond}, "p", "a")
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
	if v := one(t, s.Membership(sched.MemberEvent{Node: "q", Zone: "a", Joined: true})); v != "q" {
		t.Fatalf("victim %s, want q", v)
	}
	// No backoff at all.
	s2, _ := newTest(t, 1, Params{RetryBackoff: -1}, "p", "a")
	mustFish(t, s2)
	if v := one(t, s2.StealReply("p", 0)); v != "p" {
		t.Fatalf("victim %s", v)
	}
}

func TestInFlightLimit(t *testing.T) {
	s, _ := newTest(t, 1, Params{MaxInFlight: 2}, "p", "a", "q", "a", "r", "a")
	v1, v2 := mustFish(t, s), mustFish(t, s)
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
	s, _ := newTest(t, 1, Params{}, "p", "a", "q", "b")
	v := mustFish(t, s)
	other := sched.NodeID("q")
	if v == "q" {
		other = "p"
	}
	as := s.Membership(sched.MemberEvent{Node: v})
	// The node is hungry (it fished), so the freed slot is used at once.
	if len(as) != 1 || as[0].Kind != sched.Fish || as[0].Node != other {
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
	s.Membership(sched.MemberEvent{Node: other})
	if len(s.peers) != 0 || len(s.index) != 0 || s.Stats().InFlight != 0 {
		t.Fatalf("peers %v in flight %d", s.index, s.Stats().InFlight)
	}
	mustPark(t, s)
	// Events about self are ignored.
	s.Membership(sched.MemberEvent{Node: "self", Joined: true})
	mustPark(t, s)
	// A rejoin with a new zone moves the in-flight cross-zone count.
	one(t, s.Membership(sched.MemberEvent{Node: "x", Zone: "b", Joined: true}))
	s.StealReply("x", 1)
	mustFish(t, s)
	if s.cross != 1 {
		t.Fatalf("cross %d", s.cross)
	}
	s.Membership(sched.MemberEvent{Node: "x", Zone: "a", Joined: true})
	if s.cross != 0 || len(s.peers) != 1 || !s.peers[0].same {
		t.Fatalf("cross %d peers %v", s.cross, s.peers)
	}
}

func TestTimeout(t *testing.T) {
	s, clk := newTest(t, 1, Params{}, "p", "a", "q", "a")
	v := mustFish(t, s)
	clk.advance(DefaultReplyTimeout - time.Millisecond)
	if as := s.Tick(clk.now(), sched.Load{}); as != nil {
		t.Fatalf("Tick before the timeout = %v", as)
	}
	if s.Stats().InFlight != 1 {
		t.Fatal("request forgotten early")
	}
	clk.advance(time.Millisecond)
	// Zero Load: nothing said about hunger; the node fished, so it is
	// hungry, and asks the other peer.
	as := s.Tick(clk.now(), sched.Load{})
	if len(as) != 1 || as[0].Kind != sched.Fish || as[0].Node == v {
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
	s, clk := newTest(t, 1, Params{}, "p", "a", "q", "a")
	// Not hungry: events send nothing.
	if as := s.Tick(clk.now(), sched.Load{Workers: 1, Ready: 0, Idle: 0}); as != nil {
		t.Fatalf("busy Tick = %v", as)
	}
	// Hungry by Tick: all slots filled.
	as := s.Tick(clk.now(), sched.Load{Workers: 1, Idle: 1})
	if len(as) != 1 || as[0].Kind != sched.Fish {
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
	if as := s.Tick(clk.now(), sched.Load{Workers: 1, Idle: 1}); as != nil {
		t.Fatalf("Tick in backoff = %v", as)
	}
	clk.advance(DefaultRetryBackoff)
	if as := s.Tick(clk.now(), sched.Load{Workers: 1, Idle: 1}); len(as) != 1 {
		t.Fatalf("Tick after backoff = %v", as)
	}
	// Success ends the hunger.
	s.StealReply(s.peers[0].id, 1)
	s.StealReply(s.peers[1].id, 1)
	if as := s.Tick(clk.now(), sched.Load{}); as != nil {
		t.Fatalf("Tick after success = %v", as)
	}
}

func TestStealRequest(t *testing.T) {
	for _, c := range []struct {
		tpa, minReady, ready, want int
	}{
		{1, 1, 0, 0},
		{1, 1, 1, 1},
		{1, 1, 50, 1},
		{4, 1, 1, 1},
		{4, 1, 3, 2},
		{4, 1, 7, 4},
		{4, 1, 100, 4},
		{1, 3, 2, 0},
		{1, 3, 3, 1},
		{2, 0, 0, 0},
	} {
		s := New("self", "", 2, Params{TasksPerAnswer: c.tpa, MinReady: c.minReady})
		a := s.StealRequest("p", c.ready)
		want := sched.Action{Kind: sched.Give, Node: "p", Count: c.want}
		if c.want == 0 {
			want = sched.Action{Kind: sched.Refuse, Node: "p"}
		}
		if a != want {
			t.Errorf("%+v: StealRequest = %+v, want %+v", c, a, want)
		}
	}
}

// TestConcurrentIdle runs workers calling Idle against a goroutine that
// answers their requests, ticks, reports load and changes membership, until
// it has answered enough requests. A parking worker lets a microsecond pass,
// so backoffs end.
func TestConcurrentIdle(t *testing.T) {
	const workers, maxFlight, target = 8, 2, 500
	s, clk := newTest(t, workers, Params{MaxInFlight: maxFlight}, "p", "a", "q", "b", "r", "a")
	reqs := make(chan sched.NodeID, 4096)
	var sent atomic.Int64
	post := func(as []sched.Action) {
		for _, a := range as {
			if a.Kind == sched.Fish {
				sent.Add(1)
				reqs <- a.Node
			}
		}
	}
	var progress atomic.Int64 // requests answered
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; progress.Load() < target; i++ {
				a := s.Idle(w, i%(2*workers))
				switch a.Kind {
				case sched.Fish:
					post([]sched.Action{a})
				case sched.Park:
					clk.advance(time.Microsecond)
					runtime.Gosched() // 2 CPUs: let the answering goroutine run
				case sched.StealLocal:
					if a.Worker == w {
						t.Errorf("worker %d steals from itself", w)
					}
				}
			}
		})
	}
	done := make(chan struct{})
	answered := 0
	answer := func(v sched.NodeID) {
		if st := s.Stats(); st.InFlight > maxFlight {
			t.Errorf("in flight %d > %d", st.InFlight, maxFlight)
		}
		post(s.StealReply(v, min(answered%4, 1)))
		answered++
		progress.Store(int64(answered))
		if answered%50 == 0 {
			post(s.Tick(clk.now(), sched.Load{Workers: workers, Idle: 1}))
			post(s.LoadReport("q", sched.Load{Ready: answered}))
		}
		if answered%100 == 0 {
			post(s.Membership(sched.MemberEvent{Node: "r", Zone: "a", Joined: answered%200 == 0}))
		}
	}
	var rg sync.WaitGroup
	rg.Go(func() {
		for {
			select {
			case v := <-reqs:
				answer(v)
			case <-done:
				for len(reqs) > 0 {
					answer(<-reqs)
				}
				return
			}
		}
	})
	wg.Wait()
	close(done)
	rg.Wait()
	st := s.Stats()
	if st.InFlight != 0 || st.Requests != sent.Load() || st.Successes+st.Refusals != int64(answered) {
		t.Fatalf("stats %+v, sent %d, answered %d", st, sent.Load(), answered)
	}
	t.Logf("stats %+v", st)
}
