package fishing

import (
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Policy must be usable where an engine lets an idle node sleep.
var _ clusterpolicy.Sleeper = (*Policy)(nil)

// idleLoad is the load of a node of two workers that both wait.
var idleLoad = clusterpolicy.Load{Workers: 2, Idle: 2}

// TestNextDueIsTheEarliestTimer: an idle node's policy is due when the
// first of its timers runs out, the backoff of a refusing peer, a reply
// timeout, a deferred request's expiry, the demand hold, and at that
// time a Tick acts; with a peer to ask it is due at once, with none
// never.
func TestNextDueIsTheEarliestTimer(t *testing.T) {
	s, clk := newTest(t, Params{RetryBackoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond, DemandHold: time.Millisecond,
		DeferFor: 3 * time.Millisecond, ReplyTimeout: 50 * time.Millisecond}, "p", "a")
	if due := s.NextDue(clk.now(), idleLoad); !due.Equal(clk.now()) {
		t.Fatalf("a node whose workers wait, with a peer to ask, is due at %v, want now", due.Sub(epoch))
	}
	mustFish(t, s)
	// In flight: due at the reply timeout, after the demand hold.
	if due := s.NextDue(clk.now(), idleLoad); due != epoch.Add(time.Millisecond) {
		t.Fatalf("due at %v, want the end of the demand hold (1ms)", due.Sub(epoch))
	}
	clk.advance(time.Millisecond)
	s.Tick(clk.now(), idleLoad)
	if due := s.NextDue(clk.now(), idleLoad); due != epoch.Add(50*time.Millisecond) {
		t.Fatalf("due at %v, want the reply timeout (50ms)", due.Sub(epoch))
	}
	// A request to hold (one worker of two is still at work): due when it is refused.
	if a := s.StealRequest(clk.now(), "p", 1, clusterpolicy.Load{Workers: 2, Idle: 1}); a.Kind != clusterpolicy.Defer {
		t.Fatalf("StealRequest = %+v, want Defer", a)
	}
	clk.advance(time.Millisecond) // the demand hold the request began is over
	s.Tick(clk.now(), idleLoad)
	if due := s.NextDue(clk.now(), idleLoad); due != epoch.Add(4*time.Millisecond) {
		t.Fatalf("due at %v, want the deferral's end (4ms)", due.Sub(epoch))
	}
	clk.advance(2 * time.Millisecond)
	if as := s.Tick(clk.now(), idleLoad); len(as) != 1 || as[0].Kind != clusterpolicy.Refuse {
		t.Fatalf("Tick when due = %v, want the deferred request refused", as)
	}
	// Refused: due when the backoff ends, and then the Tick fishes.
	s.StealReply("p", 0)
	if due := s.NextDue(clk.now(), idleLoad); due != clk.now().Add(5*time.Millisecond) {
		t.Fatalf("due at %v, want the backoff's end (+5ms at %v)", due.Sub(epoch), clk.d)
	}
	clk.advance(5*time.Millisecond - time.Microsecond)
	if as := s.Tick(clk.now(), idleLoad); as != nil {
		t.Fatalf("Tick before due = %v, want nothing", as)
	}
	clk.advance(time.Microsecond)
	one(t, s.Tick(clk.now(), idleLoad))
	s.Membership(clusterpolicy.MemberEvent{Node: "p"}) // p leaves: nobody to ask
	if due := s.NextDue(clk.now(), idleLoad); due != clusterpolicy.Never {
		t.Fatalf("a node with no peer is due at %v, want never", due.Sub(epoch))
	}
}

// TestNextDueNowWhenAPeerCanBeAsked: a hungry node with a peer to ask is
// due at once (a Tick would fish).
func TestNextDueNowWhenAPeerCanBeAsked(t *testing.T) {
	s, clk := newTest(t, Params{DemandHold: time.Millisecond}, "p", "a")
	s.Tick(clk.now(), idleLoad)
	s.Hungry(clk.now())
	s.StealReply("p", 0)
	s.Membership(clusterpolicy.MemberEvent{Node: "q", Zone: "a", Joined: true}) // asked at once
	s.StealReply("q", 0)
	clk.advance(time.Second) // every backoff over
	if due := s.NextDue(clk.now(), idleLoad); !due.Equal(clk.now()) {
		t.Fatalf("due at %v, want now (%v)", due.Sub(epoch), clk.d)
	}
}

// TestIdleBackoffGrows: while every worker waits, a refusing peer's
// backoff doubles on past MaxBackoff up to IdleBackoff; without
// IdleBackoff it stops at MaxBackoff as before.
func TestIdleBackoffGrows(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		idle time.Duration
		want []time.Duration
	}{
		{-1, []time.Duration{5, 10, 20, 20, 20}},
		{80 * ms, []time.Duration{5, 10, 20, 40, 80, 80}},
	} {
		s, clk := newTest(t, Params{RetryBackoff: 5 * ms, MaxBackoff: 20 * ms, IdleBackoff: c.idle}, "p", "a")
		pr := s.peers[0]
		clk.advance(10 * ms) // past the demand hold of p's joining
		for i, w := range c.want {
			w *= ms
			one(t, s.Tick(clk.now(), idleLoad))
			s.StealReply("p", 0)
			if pr.backoff != w {
				t.Fatalf("IdleBackoff %v, refusal %d: backoff %v, want %v", c.idle, i+1, pr.backoff, w)
			}
			if due := s.NextDue(clk.now(), idleLoad); due != clk.now().Add(w) {
				t.Fatalf("IdleBackoff %v, refusal %d: due in %v, want %v", c.idle, i+1, due.Sub(clk.now()), w)
			}
			clk.advance(w)
		}
	}
}

// TestIdleBackoffEnds: the growth past MaxBackoff is undone when a worker
// here has work (a Tick shows it, or tasks arrive) and when the peer
// reports ready tasks; a busy node's backoff stops at MaxBackoff.
func TestIdleBackoffEnds(t *testing.T) {
	ms := time.Millisecond
	p := Params{RetryBackoff: 5 * ms, MaxBackoff: 20 * ms, IdleBackoff: time.Second}
	// grow refuses p until its backoff is 160ms and returns the time of
	// the last refusal.
	grow := func(s testPolicy, clk *fakeClock) time.Time {
		t.Helper()
		one(t, s.Tick(clk.now(), idleLoad))
		for range 10 {
			s.StealReply("p", 0)
			if s.peers[0].backoff == 160*ms {
				return clk.now()
			}
			clk.advance(s.peers[0].backoff)
			one(t, s.Tick(clk.now(), idleLoad))
		}
		t.Fatalf("after 10 refusals of an idle node, backoff %v, want 160ms", s.peers[0].backoff)
		return time.Time{}
	}
	for name, end := range map[string]func(s testPolicy, clk *fakeClock) []clusterpolicy.Action{
		"a worker has work": func(s testPolicy, clk *fakeClock) []clusterpolicy.Action {
			return s.Tick(clk.now(), clusterpolicy.Load{Workers: 2, Idle: 1})
		},
		"the peer reports ready tasks": func(s testPolicy, clk *fakeClock) []clusterpolicy.Action {
			return s.LoadReport("p", clusterpolicy.Load{Workers: 1, Ready: 3})
		},
	} {
		s, clk := newTest(t, p, "p", "a", "q", "a")
		s.Membership(clusterpolicy.MemberEvent{Node: "q", Joined: false}) // p alone
		refused := grow(s, clk)
		clk.advance(30 * ms)
		mustPark(t, s)
		if v := one(t, end(s, clk)); v != "p" {
			t.Fatalf("after %s: asked %s, want p", name, v)
		}
		if pr := s.peers[0]; pr.backoff != 20*ms || pr.until != refused.Add(20*ms) {
			t.Fatalf("after %s: backoff %v until %v, want 20ms from the last refusal (%v)", name, pr.backoff, pr.until.Sub(epoch), refused.Sub(epoch))
		}
	}
	// Busy (a worker at work): a refusal doubles up to MaxBackoff only.
	s, clk := newTest(t, p, "p", "a")
	mustFish(t, s)
	for range 5 {
		s.Tick(clk.now(), clusterpolicy.Load{Workers: 2, Idle: 1})
		s.StealReply("p", 0)
		clk.advance(s.peers[0].backoff)
		s.Tick(clk.now(), clusterpolicy.Load{Workers: 2, Idle: 1})
	}
	if b := s.peers[0].backoff; b != 20*ms {
		t.Fatalf("a node with a worker at work backs off %v, want MaxBackoff 20ms", b)
	}
}

// TestParseIdleBackoff: idlebackoff=D sets IdleBackoff, by default
// DefaultIdleBackoff; 0, or a value not above maxbackoff, means no growth
// (a negative IdleBackoff, which Params' defaults leave so).
func TestParseIdleBackoff(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"idlebackoff=2s":                   2 * time.Second,
		"idlebackoff=0":                    -1,
		"maxbackoff=50ms,idlebackoff=10ms": -1,
		"":                                 DefaultIdleBackoff,
	} {
		p, err := ParseParams(in)
		if err != nil || p.IdleBackoff != want {
			t.Errorf("ParseParams(%q): IdleBackoff %v, %v; want %v", in, p.IdleBackoff, err, want)
		}
	}
	if _, err := ParseParams("idlebackoff=soon"); err == nil {
		t.Error("idlebackoff=soon accepted")
	}
}

// TestNextDueOfANodeAtWork: a node whose workers are all at work fishes
// only once one runs dry, an event, so a peer it could ask makes it due
// no sooner; its deferrals and reply timeouts still are. Asking ahead of
// need, it is due at once: its ready tasks falling below the mark is no
// event.
func TestNextDueOfANodeAtWork(t *testing.T) {
	busy := clusterpolicy.Load{Workers: 2, Ready: 3}
	s, clk := newTest(t, Params{DemandHold: time.Millisecond, DeferFor: 3 * time.Millisecond}, "p", "a")
	clk.advance(10 * time.Millisecond) // past the demand hold of p's joining
	s.Tick(clk.now(), busy)
	if due := s.NextDue(clk.now(), idleLoad); !due.Equal(clk.now()) {
		t.Fatalf("idle, with a peer to ask: due in %v, want now", due.Sub(clk.now()))
	}
	if due := s.NextDue(clk.now(), busy); due != clusterpolicy.Never {
		t.Fatalf("at work, nothing pending: due in %v, want never", due.Sub(clk.now()))
	}
	if a := s.StealRequest(clk.now(), "p", 1, atWork(0)); a.Kind != clusterpolicy.Defer {
		t.Fatalf("StealRequest with nothing to lend = %+v, want Defer", a)
	}
	if due := s.NextDue(clk.now(), busy); !due.Equal(clk.now().Add(time.Millisecond)) {
		t.Fatalf("at work, a request deferred: due in %v, want the demand hold's end (1ms)", due.Sub(clk.now()))
	}
	clk.advance(time.Millisecond)
	s.Tick(clk.now(), busy)
	if due := s.NextDue(clk.now(), busy); !due.Equal(clk.now().Add(2 * time.Millisecond)) {
		t.Fatalf("at work, a request deferred: due in %v, want the deferral's end (2ms)", due.Sub(clk.now()))
	}

	ahead, clk := newTest(t, Params{LowWater: 4}, "p", "a")
	ahead.Tick(clk.now(), busy)
	if due := ahead.NextDue(clk.now(), busy); !due.Equal(clk.now()) {
		t.Fatalf("at work, asking ahead of need: due in %v, want now", due.Sub(clk.now()))
	}
}

// TestIdleBackoffNoneStaysNone: Params whose defaults were filled, filled
// again, keep "no growth": the default applies to a zero field only.
func TestIdleBackoffNoneStaysNone(t *testing.T) {
	p, err := ParseParams("idlebackoff=0")
	if err != nil {
		t.Fatal(err)
	}
	if q := p.withDefaults(); q.IdleBackoff > q.MaxBackoff {
		t.Fatalf("idlebackoff=0 filled twice grows to %v", q.IdleBackoff)
	}
}
