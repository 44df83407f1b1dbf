package fishing

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/xorshift"
)

// TestLifelineGraph: for every cluster size up to 130, each node has
// ceil(log2 P) buddies, distinct and other than itself, each node is the
// buddy of as many, and work at any node reaches every other, from a
// holder to the nodes whose buddy it is, in at most ceil(log2 P) hops.
func TestLifelineGraph(t *testing.T) {
	for members := 1; members <= 130; members++ {
		names := make([]clusterpolicy.NodeID, members)
		for i := range names {
			names[i] = clusterpolicy.NodeID(fmt.Sprintf("n%03d", members-1-i)) // not in order
		}
		degree := bits.Len(uint(members - 1)) // ceil(log2 P)
		waiters := map[clusterpolicy.NodeID][]clusterpolicy.NodeID{}
		for _, self := range names {
			var peers []*peer
			for _, o := range names {
				if o != self {
					peers = append(peers, &peer{id: o})
				}
			}
			got := buddies(self, peers, nil)
			ids := make([]clusterpolicy.NodeID, len(got))
			for i, b := range got {
				ids[i] = b.id
				waiters[b.id] = append(waiters[b.id], self)
			}
			slices.Sort(ids)
			if len(ids) != degree || slices.Contains(ids, self) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
				t.Fatalf("%d members: %s's buddies %v, want %d distinct others", members, self, ids, degree)
			}
		}
		for _, holder := range names {
			if n := len(waiters[holder]); n != degree {
				t.Fatalf("%d members: %s is the buddy of %d, want %d", members, holder, n, degree)
			}
			// Work flows from a holder to those that wait on it.
			hops := map[clusterpolicy.NodeID]int{holder: 0}
			for frontier := []clusterpolicy.NodeID{holder}; len(frontier) > 0; {
				var next []clusterpolicy.NodeID
				for _, h := range frontier {
					for _, w := range waiters[h] {
						if _, seen := hops[w]; !seen {
							hops[w] = hops[h] + 1
							next = append(next, w)
						}
					}
				}
				frontier = next
			}
			for _, n := range names {
				if h, ok := hops[n]; !ok || h > degree {
					t.Fatalf("%d members: work at %s reaches %s in %d hops (reached: %v)", members, holder, n, h, ok)
				}
			}
		}
	}
}

// starve makes s's node starved, as if none of its last few dozen
// answers had brought tasks: it may then go quiet.
func starve(s testPolicy) { s.limit.answered = 0 }

// lifelinesTo checks that as are lifelines, and returns whom to.
func lifelinesTo(t *testing.T, as []clusterpolicy.Action) []clusterpolicy.NodeID {
	t.Helper()
	var to []clusterpolicy.NodeID
	for _, a := range as {
		if a.Kind != clusterpolicy.Lifeline || a.Count < 1 {
			t.Fatalf("actions %v, want lifelines", as)
		}
		to = append(to, a.Node)
	}
	slices.Sort(to)
	return to
}

// TestQuietAfterRefusals: with lifelines=2, a hungry node that two peers
// refuse in a row stops asking at random and sends its lifelines to its
// buddies (of self among p, q, r, s: p, q and s); then neither Hungry nor
// a Tick makes it send anything, nor is it due. Tasks pushed by a buddy
// end the quiet; the buddies that still hold its lifeline are not asked
// at random when it runs dry again, and only those that hold none get a
// lifeline when it is quiet again.
func TestQuietAfterRefusals(t *testing.T) {
	s, clk := newTest(t, Params{Lifelines: 2, MaxInFlight: 1}, "p", "a", "q", "a", "r", "a", "s", "a")
	starve(s)
	idle := clusterpolicy.Load{Workers: 1, Idle: 1}
	v := mustFish(t, s)
	if as := s.StealReply(v, 0); len(as) != 1 || as[0].Kind != clusterpolicy.Fish {
		t.Fatalf("after one refusal: %v, want another request at random", as)
	}
	w := s.Policy.peers[slices.IndexFunc(s.Policy.peers, func(p *peer) bool { return p.inFlight })].id
	got := lifelinesTo(t, s.StealReply(w, 0))
	if want := []clusterpolicy.NodeID{"p", "q", "s"}; !slices.Equal(got, want) {
		t.Fatalf("after two refusals, lifelines to %v, want %v", got, want)
	}
	clk.advance(time.Second)
	mustPark(t, s)
	if as := s.Tick(clk.now(), idle); as != nil {
		t.Fatalf("a quiet node's Tick: %v", as)
	}
	clk.advance(time.Second) // past the demand the last Hungry held
	if due := s.NextDue(clk.now(), idle); due != clusterpolicy.Never {
		t.Fatalf("a quiet node is due at %v, want never", due.Sub(epoch))
	}
	if st := s.Stats(); st.Lifelines != 3 || st.Requests != 2 {
		t.Fatalf("stats %+v, want 2 requests and 3 lifelines", st)
	}
	// q pushes: the node is fed, and asks at random when it runs dry,
	// but not p or s, which hold its lifeline.
	if as := s.StealReply("q", 3); as != nil {
		t.Fatalf("tasks from a lifeline: %v", as)
	}
	s.Tick(clk.now(), clusterpolicy.Load{Workers: 1})
	starve(s)
	first := mustFish(t, s)
	second := one(t, s.StealReply(first, 0))
	if asked := []clusterpolicy.NodeID{first, second}; slices.Contains(asked, "p") || slices.Contains(asked, "s") || first == second {
		t.Fatalf("asked %v at random: want q and r, not p or s, which hold the lifeline", asked)
	}
	// Quiet again: a lifeline to q alone, the buddy that holds none.
	if got := lifelinesTo(t, s.StealReply(second, 0)); !slices.Equal(got, []clusterpolicy.NodeID{"q"}) {
		t.Fatalf("quiet again: lifelines to %v, want q", got)
	}
	if !s.lifeline.quiet || s.lifelinesHeld() != 3 {
		t.Fatalf("quiet %v with %d lifelines held", s.lifeline.quiet, s.lifelinesHeld())
	}
}

func TestQuietSendsToBuddiesOnceAsked(t *testing.T) {
	s, _ := newTest(t, Params{Lifelines: 1, MaxInFlight: 2}, "p", "a", "q", "a")
	starve(s)
	as := s.Hungry(s.clk.now())
	if len(as) != 2 {
		t.Fatalf("Hungry: %v, want requests to p and q", as)
	}
	// Of self among p and q, both are buddies.
	if got := lifelinesTo(t, s.StealReply("p", 0)); !slices.Equal(got, []clusterpolicy.NodeID{"p"}) {
		t.Fatalf("after p refused: lifelines to %v, want p alone (q has a request in flight)", got)
	}
	if got := lifelinesTo(t, s.StealReply("q", 0)); !slices.Equal(got, []clusterpolicy.NodeID{"q"}) {
		t.Fatalf("after q refused: lifelines to %v, want q", got)
	}
}

// TestEmptyLifelineAnswerEndsTheQuiet: a lifeline answered without a task
// (its holder had none to lend after all) ends the quiet: the node asks
// at random again, rather than sending lifelines back and forth.
func TestEmptyLifelineAnswerEndsTheQuiet(t *testing.T) {
	s, clk := newTest(t, Params{Lifelines: 1, RetryBackoff: -1}, "p", "a")
	starve(s)
	v := mustFish(t, s)
	if got := lifelinesTo(t, s.StealReply(v, 0)); !slices.Equal(got, []clusterpolicy.NodeID{"p"}) {
		t.Fatalf("lifelines to %v, want p", got)
	}
	clk.advance(time.Millisecond)
	if v := one(t, s.StealReply("p", 0)); v != "p" {
		t.Fatalf("asked %s", v)
	}
	if s.lifeline.quiet || s.lifelinesHeld() != 0 {
		t.Fatalf("quiet %v, %d lifelines held, after the only one came back empty", s.lifeline.quiet, s.lifelinesHeld())
	}
}

// TestHoldsLifelines: a lifeline finds tasks to lend and gets them at
// once, as a request would; else it is held, even by a node whose workers
// all wait (which refuses a request at once), for as long as it takes,
// and answered at the next push, after the deferred requests, each
// waiting node getting what a request would. A node that leaves is
// forgotten.
func TestHoldsLifelines(t *testing.T) {
	s, clk := newTest(t, Params{Lifelines: 1}, "p", "a", "q", "a", "r", "a")
	waiting := clusterpolicy.Load{Workers: 2, Idle: 2}
	if a := s.LifelineRequest(clk.now(), "p", 8, clusterpolicy.Load{Workers: 2, Ready: 5}); a.Kind != clusterpolicy.Give || a.Count != 1 || a.Node != "p" {
		t.Fatalf("a lifeline to a node with 5 ready: %+v, want 1 task (the first batch) at once", a)
	}
	if a := s.StealRequest(clk.now(), "q", 8, waiting); a.Kind != clusterpolicy.Refuse {
		t.Fatalf("a request to a waiting node: %+v, want a refusal at once", a)
	}
	for _, from := range []clusterpolicy.NodeID{"q", "r"} {
		if a := s.LifelineRequest(clk.now(), from, 8, waiting); a.Kind != clusterpolicy.Defer || a.Node != from {
			t.Fatalf("a lifeline from %s to a waiting node: %+v, want it held", from, a)
		}
	}
	if d := s.Advice().Deferred; d != 2 {
		t.Fatalf("%d held by the advice, want 2", d)
	}
	clk.advance(time.Minute)
	for _, a := range s.Tick(clk.now(), waiting) { // the node fishes too
		if a.Kind != clusterpolicy.Fish {
			t.Fatalf("a minute later, a Tick: %v, want the lifelines still held", a)
		}
	}
	if d := s.Advice().Deferred; d != 2 {
		t.Fatalf("a minute later, %d held, want 2", d)
	}
	// A request deferred by a working node comes first; then the
	// lifelines, from what is left.
	if a := s.StealRequest(clk.now(), "p", 8, clusterpolicy.Load{Workers: 2}); a.Kind != clusterpolicy.Defer {
		t.Fatalf("a request to a working node with nothing ready: %+v", a)
	}
	as := s.Pushed(clk.now(), 3)
	want := []clusterpolicy.Action{{Kind: clusterpolicy.Give, Node: "p", Count: 1}, {Kind: clusterpolicy.Give, Node: "q", Count: 1}, {Kind: clusterpolicy.Give, Node: "r", Count: 1}}
	if !slices.Equal(as, want) {
		t.Fatalf("a push of 3: %v, want %v", as, want)
	}
	if st := s.Stats(); st.Held != 2 || st.Pushes != 2 || s.Advice().Deferred != 0 {
		t.Fatalf("stats %+v, %d held", st, s.Advice().Deferred)
	}
	// One left of two, for a single ready task: the first gets it, the
	// other waits for the next push.
	s.LifelineRequest(clk.now(), "q", 8, waiting)
	s.LifelineRequest(clk.now(), "r", 8, waiting)
	if as := s.Pushed(clk.now(), 1); !slices.Equal(as, []clusterpolicy.Action{{Kind: clusterpolicy.Give, Node: "q", Count: 1}}) {
		t.Fatalf("a push of 1 for two lifelines: %v", as)
	}
	s.Membership(clusterpolicy.MemberEvent{Node: "r"})
	if as := s.Pushed(clk.now(), 4); as != nil || s.Advice().Deferred != 0 {
		t.Fatalf("after r left: %v, %d held", as, s.Advice().Deferred)
	}
}

// TestBuddyLeaves: a buddy that leaves takes the node's lifeline with
// it; the graph is worked out again over the members left, and a quiet
// node sends a lifeline to its new buddies.
func TestBuddyLeaves(t *testing.T) {
	s, _ := newTest(t, Params{Lifelines: 1, MaxInFlight: 1, RetryBackoff: -1}, "p", "a", "q", "a", "r", "a")
	starve(s)
	// Of self among p, q and r: p and q (self+1 and self+2, mod 4).
	v := mustFish(t, s)
	if got := lifelinesTo(t, s.StealReply(v, 0)); !slices.Equal(got, []clusterpolicy.NodeID{"p", "q"}) {
		t.Fatalf("lifelines to %v, want p and q", got)
	}
	// Without q, of self among p and r: both.
	if got := lifelinesTo(t, s.Membership(clusterpolicy.MemberEvent{Node: "q"})); !slices.Equal(got, []clusterpolicy.NodeID{"r"}) {
		t.Fatalf("after q left: lifelines to %v, want r", got)
	}
	if s.lifelinesHeld() != 2 {
		t.Fatalf("%d lifelines held, want 2", s.lifelinesHeld())
	}
}

// TestQuietOnlyWhenStarved: a node whose answers bring tasks often
// enough goes on asking at random after any number of refusals in a
// row, as many at once as without lifelines; once fewer than one answer
// in 8 brings tasks, it asks at most Lifelines at once and goes quiet
// after as many refusals.
func TestQuietOnlyWhenStarved(t *testing.T) {
	var peers []string
	for i := range 63 {
		peers = append(peers, fmt.Sprint("p", i), "a")
	}
	s, _ := newTest(t, Params{Lifelines: 2, RetryBackoff: -1}, peers...)
	flying := s.Hungry(s.clk.now())
	if len(flying) != 8 {
		t.Fatalf("63 peers, not starved: %d requests at once, want 8", len(flying))
	}
	// One answer in 4 brings tasks: never starved, never quiet.
	for i := range 200 {
		a := flying[0]
		n := 0
		if i%4 == 0 {
			n = 1
			s.Tick(s.clk.now(), clusterpolicy.Load{Workers: 1, Idle: 1}) // hungry again
		}
		flying = append(flying[1:], s.StealReply(a.Node, n)...)
		if len(flying) == 0 {
			flying = s.Hungry(s.clk.now())
		}
		for _, a := range flying {
			if a.Kind != clusterpolicy.Fish {
				t.Fatalf("answer %d, one in 4 with tasks: %+v, want requests only", i, a)
			}
		}
	}
	// None brings tasks: the share falls under 1 in 8, the count to 2,
	// and two refusals in a row make the node quiet.
	var quiet bool
	for i := 0; i < 200 && !quiet; i++ {
		a := flying[0]
		flying = flying[1:]
		for _, b := range s.StealReply(a.Node, 0) {
			switch {
			case b.Kind == clusterpolicy.Lifeline:
				quiet = true
			case s.limit.starved() && len(flying) >= 2:
				t.Fatalf("starved, a request more with %d in flight, want at most 2", len(flying))
			default:
				flying = append(flying, b)
			}
		}
	}
	if !quiet || !s.limit.starved() {
		t.Fatalf("after 200 refusals: quiet %v, starved %v (answered %.3f)", quiet, s.limit.starved(), s.limit.answered)
	}
}

// TestLifelinesAuto: by default, lifelines are on from 256 nodes: a
// starved node among 255 peers goes quiet after 2 refusals in a row,
// one among 254 never does.
func TestLifelinesAuto(t *testing.T) {
	for peers, want := range map[int]bool{254: false, 255: true} {
		var ps []string
		for i := range peers {
			ps = append(ps, fmt.Sprintf("p%03d", i), "a")
		}
		s, _ := newTest(t, Params{RetryBackoff: -1}, ps...)
		starve(s)
		var quiet bool
		flying := s.Hungry(s.clk.now())
		for i := 0; i < 10 && len(flying) > 0; i++ {
			a := flying[0]
			flying = flying[1:]
			for _, b := range s.StealReply(a.Node, 0) {
				if b.Kind == clusterpolicy.Lifeline {
					quiet = true
				} else {
					flying = append(flying, b)
				}
			}
		}
		if quiet != want || s.lifeline.quiet != want {
			t.Errorf("%d nodes, starved, 10 refusals: quiet %v, want %v", peers+1, quiet, want)
		}
		if want && s.Stats().Lifelines != 8 { // log2(256) buddies
			t.Errorf("%d nodes: %d lifelines sent, want 8", peers+1, s.Stats().Lifelines)
		}
	}
}

// TestParseLifelines: lifelines=N sets the count, auto the default, off
// and 0 none; other values are refused, naming the option.
func TestParseLifelines(t *testing.T) {
	for in, want := range map[string]int{"lifelines=3": 3, "lifelines=off": -1, "lifelines=0": -1, "lifelines=auto": 0, "": DefaultLifelines} {
		p, err := ParseParams(in)
		if err != nil || p.Lifelines != want {
			t.Errorf("ParseParams(%q): Lifelines %d, %v; want %d", in, p.Lifelines, err, want)
		}
	}
	for _, in := range []string{"lifelines=-2", "lifelines=some", "lifelines="} {
		if _, err := ParseParams(in); err == nil || !strings.Contains(err.Error(), "lifelines") || !strings.Contains(err.Error(), "off") {
			t.Errorf("ParseParams(%q): %v", in, err)
		}
	}
}

// TestLifelineSequences: in random sequences of events, lifelines keep
// their rules: a quiet node asks nobody at random; a lifeline goes only
// to a peer that holds none of the node's and has no request of it in
// flight; a request never goes to a peer holding one; and the policy's
// count of lifelines held is what its peers say.
func TestLifelineSequences(t *testing.T) {
	names := []clusterpolicy.NodeID{"p", "q", "r", "s", "t", "u"}
	for seed := range uint64(300) {
		rng := xorshift.Seed(seed)
		s := New("self", "a", Params{Lifelines: 1 + rng.Below(3), MaxInFlight: rng.Below(4), Lend: []Lending{LendHalf, LendAdaptive}[rng.Below(2)], RetryBackoff: []time.Duration{-1, 0}[rng.Below(2)]})
		now := epoch
		live, flying, holds := map[clusterpolicy.NodeID]bool{}, map[clusterpolicy.NodeID]bool{}, map[clusterpolicy.NodeID]bool{}
		check := func(ev string, as []clusterpolicy.Action) {
			for _, a := range as {
				switch a.Kind {
				case clusterpolicy.Fish:
					if s.lifeline.quiet || flying[a.Node] || holds[a.Node] || !live[a.Node] {
						t.Fatalf("seed %d, %s: request to %s (quiet %v, in flight %v, holds a lifeline %v, live %v)", seed, ev, a.Node, s.lifeline.quiet, flying[a.Node], holds[a.Node], live[a.Node])
					}
					flying[a.Node] = true
				case clusterpolicy.Lifeline:
					if flying[a.Node] || holds[a.Node] || !live[a.Node] {
						t.Fatalf("seed %d, %s: lifeline to %s (in flight %v, holds one %v, live %v)", seed, ev, a.Node, flying[a.Node], holds[a.Node], live[a.Node])
					}
					holds[a.Node] = true
				}
			}
			for _, pr := range s.peers {
				if pr.lifeline != holds[pr.id] {
					t.Fatalf("seed %d, %s: %s holds a lifeline: %v by the policy, %v by its actions", seed, ev, pr.id, pr.lifeline, holds[pr.id])
				}
			}
		}
		for range 400 {
			now = now.Add(time.Duration(rng.Below(3000)) * time.Microsecond)
			peer := names[rng.Below(len(names))]
			switch rng.Below(8) {
			case 0, 1:
				check("hungry", s.Hungry(now))
			case 2:
				joined := rng.Below(3) > 0
				if !joined {
					delete(flying, peer)
					delete(holds, peer)
				}
				live[peer] = joined
				check("member", s.Membership(now, clusterpolicy.MemberEvent{Node: peer, Joined: joined}))
			case 3, 4:
				// An answer: to the request in flight, else to the lifeline
				// held, else a push nobody asked for.
				n := rng.Below(2) * (1 + rng.Below(4))
				if !live[peer] {
					continue
				}
				if flying[peer] {
					delete(flying, peer)
				} else {
					delete(holds, peer)
				}
				check(fmt.Sprintf("reply %s %d", peer, n), s.StealReply(now, peer, n))
			case 5:
				w := 1 + rng.Below(2)
				l := clusterpolicy.Load{Workers: w, Idle: rng.Below(w + 1), Ready: rng.Below(2) * rng.Below(5)}
				check("tick", s.Tick(now, l))
				for pr := range flying {
					if i, ok := s.index[pr]; ok && !s.peers[i].inFlight {
						delete(flying, pr) // timed out
					}
				}
			case 6:
				a := s.LifelineRequest(now, peer, 8, clusterpolicy.Load{Workers: 1, Idle: 1})
				if a.Kind != clusterpolicy.Defer {
					t.Fatalf("seed %d: a lifeline to a waiting node: %+v", seed, a)
				}
			case 7:
				for _, a := range s.Pushed(now, rng.Below(4)) {
					if a.Kind != clusterpolicy.Give || a.Count < 1 {
						t.Fatalf("seed %d: a push: %+v", seed, a)
					}
				}
			}
		}
	}
}

// lifelinesHeld is how many peers hold a lifeline of the node.
func (s *Policy) lifelinesHeld() int {
	n := 0
	for _, pr := range s.peers {
		if pr.lifeline {
			n++
		}
	}
	return n
}
