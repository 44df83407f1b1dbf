package fishing

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// busy is the load of a node of two workers, both at work, with ready
// tasks ready.
func busy(ready int) clusterpolicy.Load { return clusterpolicy.Load{Workers: 2, Ready: ready} }

// TestLowWaterAsksAhead: with LowWater 4, a node whose workers are all at
// work fishes on the Tick that finds fewer than 4 ready tasks, not before;
// the answer's tasks count as prefetched, and it fishes no more while it
// holds enough. Without a mark (the default) a busy node never fishes.
func TestLowWaterAsksAhead(t *testing.T) {
	s, clk := newTest(t, Params{LowWater: 4}, "p", "a", "q", "a")
	if r := s.Advice().Reserve; r != 4 {
		t.Fatalf("Advice().Reserve = %d with a mark of 4, want 4: a worker that takes a borrowed task leaving fewer asks", r)
	}
	if as := s.Tick(clk.now(), busy(4)); as != nil {
		t.Fatalf("Tick with 4 ready, mark 4 = %v, want nothing", as)
	}
	victim := one(t, s.Tick(clk.now(), busy(3)))
	if st := s.Stats(); st.Prefetches != 1 || st.Requests != 1 {
		t.Fatalf("stats %+v, want one request, a prefetch", st)
	}
	clk.advance(100 * time.Microsecond)
	if as := s.StealReply(victim, 5); as != nil {
		t.Fatalf("answer to a prefetch = %v, want nothing more", as)
	}
	if as := s.Tick(clk.now(), busy(7)); as != nil {
		t.Fatalf("Tick with 7 ready = %v, want nothing", as)
	}
	if st := s.Stats(); st.Prefetched != 5 || st.RanDry != 0 {
		t.Fatalf("stats %+v, want 5 prefetched, none ran dry", st)
	}

	off, clk2 := newTest(t, Params{}, "p", "a")
	for ready := range 3 {
		if as := off.Tick(clk2.now(), busy(ready)); as != nil {
			t.Fatalf("no mark, busy with %d ready: Tick = %v, want nothing", ready, as)
		}
	}
}

// TestPrefetchRanDry: a worker that runs out of work while a prefetch is
// in flight counts the prefetch as too late, once, whether a Tick or a
// worker's Hungry tells; the node sends no second request while the slot
// is taken, and a hungry request is no prefetch.
func TestPrefetchRanDry(t *testing.T) {
	s, clk := newTest(t, Params{LowWater: 2}, "p", "a", "q", "a")
	victim := one(t, s.Tick(clk.now(), busy(1)))
	if as := s.Tick(clk.now(), clusterpolicy.Load{Workers: 2, Idle: 1}); as != nil {
		t.Fatalf("dry Tick with the slot taken = %v", as)
	}
	if as := s.Hungry(clk.now()); as != nil {
		t.Fatalf("Hungry with the slot taken = %v", as)
	}
	if st := s.Stats(); st.RanDry != 1 {
		t.Fatalf("stats %+v, want the prefetch counted as run dry once", st)
	}
	s.StealReply(victim, 0) // refused: the node, hungry, asks the other
	if st := s.Stats(); st.Requests != 2 || st.Prefetches != 1 || st.Prefetched != 0 {
		t.Fatalf("stats %+v, want a second request, not a prefetch", st)
	}
}

// TestStealHalf: lending half a node lends half its ready tasks, rounded
// up, up to what the asker wants, whatever its batch; adaptive, and by
// default on a small cluster, it lends the asker's batch (1 at first).
func TestStealHalf(t *testing.T) {
	for _, c := range []struct {
		lend              Lending
		want, ready, lent int
	}{
		{LendHalf, 8, 10, 5},
		{LendHalf, 8, 1, 1},
		{LendHalf, 8, 20, 8},
		{LendHalf, 2, 10, 2},
		{LendAdaptive, 8, 10, 1},
		{LendAuto, 8, 10, 1},
	} {
		s := New("self", "", Params{Lend: c.lend, DeferFor: -1})
		a := s.StealRequest(epoch, "p", c.want, atWork(c.ready))
		if a.Kind != clusterpolicy.Give || a.Count != c.lent {
			t.Errorf("%+v: StealRequest = %+v, want %d lent", c, a, c.lent)
		}
	}
	// A deferred request is answered by the same rule.
	s := New("self", "", Params{Lend: LendHalf})
	if a := s.StealRequest(epoch, "p", 8, atWork(0)); a.Kind != clusterpolicy.Defer {
		t.Fatalf("nothing ready: %+v, want Defer", a)
	}
	if as := s.Pushed(epoch, 6); len(as) != 1 || as[0].Count != 3 {
		t.Errorf("push with 6 ready: %v, want 3 lent", as)
	}
}

// TestStealHalfOnLargeClusters: by default a node lends half once the
// cluster has autoHalfFrom nodes, and its adaptive batch again once
// members leave below that; lend=adaptive never lends half.
func TestStealHalfOnLargeClusters(t *testing.T) {
	for _, c := range []struct {
		lend  Lending
		nodes int
		lent  int
	}{
		{LendAuto, autoHalfFrom - 1, 1},
		{LendAuto, autoHalfFrom, 5},
		{LendAdaptive, autoHalfFrom, 1},
		{LendHalf, 2, 5},
	} {
		s := New("self", "", Params{Lend: c.lend, DeferFor: -1})
		for i := range c.nodes - 1 {
			s.Membership(epoch, clusterpolicy.MemberEvent{Node: clusterpolicy.NodeID(fmt.Sprint("p", i)), Joined: true})
		}
		if a := s.StealRequest(epoch, "p0", 8, atWork(10)); a.Kind != clusterpolicy.Give || a.Count != c.lent {
			t.Errorf("%v on %d nodes, 10 ready: %+v, want %d lent", c.lend, c.nodes, a, c.lent)
		}
	}
	s := New("self", "", Params{})
	for i := range autoHalfFrom - 1 {
		s.Membership(epoch, clusterpolicy.MemberEvent{Node: clusterpolicy.NodeID(fmt.Sprint("p", i)), Joined: true})
	}
	s.Membership(epoch, clusterpolicy.MemberEvent{Node: "p1", Joined: false})
	if a := s.StealRequest(epoch, "p0", 8, atWork(10)); a.Count != 1 {
		t.Errorf("after a member left, below %d nodes: %+v, want the adaptive batch of 1", autoHalfFrom, a)
	}
}

// TestParsePrefetch: low=N and lend=half|adaptive are read, and bad
// values are refused, saying what is wanted.
func TestParsePrefetch(t *testing.T) {
	p, err := ParseParams("low=4,lend=half")
	if err != nil || p.LowWater != 4 || p.Lend != LendHalf {
		t.Fatalf("ParseParams = %+v, %v", p, err)
	}
	if p, err := ParseParams("low=0,lend=adaptive"); err != nil || p.LowWater != 0 || p.Lend != LendAdaptive {
		t.Fatalf("ParseParams = %+v, %v", p, err)
	}
	if p, err := ParseParams("lend=auto"); err != nil || p.Lend != LendAuto {
		t.Fatalf("ParseParams = %+v, %v", p, err)
	}
	for opt, want := range map[string]string{"low=-1": "whole number", "low=x": "whole number", "lend=all": "adaptive"} {
		if _, err := ParseParams(opt); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", opt, err, want)
		}
	}
}
