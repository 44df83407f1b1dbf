package cluster

import (
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
	"github.com/tsys-go/tsys/internal/net/membership"
)

// handTicker is a tickClock the test moves: fire delivers a tick unless
// the node stopped the clock, as a stopped time.Ticker delivers none.
type handTicker struct {
	c       chan time.Time
	mu      sync.Mutex
	stopped bool
	resets  int
	period  time.Duration // of the last Reset
}

func (h *handTicker) C() <-chan time.Time { return h.c }

func (h *handTicker) Stop() {
	h.mu.Lock()
	h.stopped = true
	h.mu.Unlock()
}

func (h *handTicker) Reset(d time.Duration) {
	h.mu.Lock()
	h.stopped = false
	h.resets++
	h.period = d
	h.mu.Unlock()
}

// running says whether the clock runs, and at what period.
func (h *handTicker) running() (bool, time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.stopped, h.period
}

func (h *handTicker) resetCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.resets
}

func (h *handTicker) isStopped() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stopped
}

// fire delivers one tick, reporting false when the clock is stopped. The
// node's tick takes it within 10 s or the test fails.
func (h *handTicker) fire(t *testing.T) bool {
	t.Helper()
	if h.isStopped() {
		return false
	}
	select {
	case h.c <- time.Now():
		return true
	case <-time.After(10 * time.Second):
		t.Fatal("the node's tick took no tick for 10 s")
		return false
	}
}

// TestIdleNodeSleeps: a node with no job handles one tick, publishes its
// load and stops its clock, so that a hundred ticks later it has still
// woken once; a job's start wakes it again, and it ticks while it serves
// the job.
func TestIdleNodeSleeps(t *testing.T) {
	clock := &handTicker{c: make(chan time.Time)}
	node := testNode(t, Config{newTicker: func(time.Duration) tickClock { return clock }})
	if !clock.fire(t) {
		t.Fatal("the clock was stopped before the node's first tick")
	}
	waitUntil(t, "the idle node stops its clock", clock.isStopped)
	for i := range 100 {
		if clock.fire(t) {
			t.Fatalf("tick %d taken by a node with no job", i)
		}
	}
	if w := node.tick.wakeups.Load(); w != 1 {
		t.Errorf("an idle node woke %d times for 101 ticks, want 1", w)
	}

	root := newBarePeer(t, "root")
	const job = 97
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	waitUntil(t, "the node serves the job", func() bool { return node.jobs.of(job) != nil })
	waitUntil(t, "the job starts the clock again", func() bool { return !clock.isStopped() })
	for i := range 3 {
		if !clock.fire(t) {
			t.Fatalf("tick %d refused by a node serving a job", i)
		}
	}
	waitUntil(t, "the node handles its ticks", func() bool { return node.tick.wakeups.Load() == 4 })
	if clock.isStopped() {
		t.Error("the clock stopped while the node serves a job")
	}
}

// servingOnAHandClock starts a node of one worker, with fishing and a
// hand-driven tick, serving job for a bare root that gossip never
// announced, so that fishing has no peer to ask.
func servingOnAHandClock(t *testing.T, job uint64, tweaks ...func(*Config)) (*handTicker, *Node, *barePeer) {
	t.Helper()
	clock := &handTicker{c: make(chan time.Time)}
	cfg := Config{newTicker: func(time.Duration) tickClock { return clock },
		Policy: func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy {
			return fishing.New(self, zone, fishing.Params{})
		}}
	for _, tweak := range tweaks {
		tweak(&cfg)
	}
	node := testNode(t, cfg)
	root := newBarePeer(t, "root")
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	waitUntil(t, "the node serves the job", func() bool { return node.jobs.of(job) != nil })
	return clock, node, root
}

// TestServingNodeDozes: a node serving a job whose work is all elsewhere
// (its worker waits, nothing is lent or borrowed, and its fishing policy,
// with no peer to ask, has nothing due) stops its clock, and a hundred
// ticks later has not woken; a peer's request rouses it at once, the tick
// that follows refuses the request when its deferral runs out, and then
// the node dozes again.
func TestServingNodeDozes(t *testing.T) {
	const job = 98
	clock, node, root := servingOnAHandClock(t, job)
	waitUntil(t, "the serving node's ticks stop its clock", func() bool {
		clock.fire(t)
		return clock.isStopped()
	})
	woke := node.tick.wakeups.Load()
	for i := range 100 {
		if clock.fire(t) {
			t.Fatalf("tick %d taken by a node with nothing to do", i)
		}
	}
	if w := node.tick.wakeups.Load(); w != woke {
		t.Errorf("a dozing node woke %d times for 100 ticks, want 0", w-woke)
	}

	root.send(node, &stealRequest{Job: job, ID: 1, Want: 1, ReplyTo: root.addr()})
	waitUntil(t, "the request rouses the clock", func() bool { return !clock.isStopped() })
	waitUntil(t, "a tick refuses the request once its deferral runs out", func() bool {
		clock.fire(t)
		select {
		case m := <-root.replies:
			if r, ok := m.(*stealReply); ok && r.Job == job && len(r.Tasks) == 0 {
				return true
			}
			t.Fatalf("the node answered the request with %T %+v, want a refusal", m, m)
		default:
		}
		return false
	})
	waitUntil(t, "the node dozes again", func() bool {
		clock.fire(t)
		return clock.isStopped()
	})

	// Gossip declares the root dead: the tick, which times an orphaned
	// job, runs again.
	gossipInbox{node}.onMember(membership.Event{Kind: membership.Left, Failed: true, Member: membership.Member{Name: "root"}})
	waitUntil(t, "the root's death rouses the clock", func() bool { return !clock.isStopped() })
}

// TestBusyNodeDozes: a node whose every worker is at work, and whose
// policy needs no time (fishing with no peer to ask), slows its clock to
// maxBusyDoze rather than taking a core from its worker every TickEvery;
// the worker running dry rouses it at once, although the policy's advice
// holds that worker's Hungry back (no peer to ask), so that the node
// looks again at once rather than a doze later.
func TestBusyNodeDozes(t *testing.T) {
	gate.shut()
	defer gate.open()
	const job = 95
	clock, node, root := servingOnAHandClock(t, job)
	root.send(node, &stealReply{Job: job, ReplyTo: root.addr(), Tasks: []taskRecord{{ID: 1, Kind: gatedKind, Arg: encodeInt64(21)}}})
	waitUntil(t, "the node's worker is at work", func() bool { return node.jobs.of(job).pool.Port().Load().AtWork() })
	waitUntil(t, "the busy node's ticks slow its clock", func() bool {
		clock.fire(t)
		on, d := clock.running()
		return on && d == maxBusyDoze && node.tick.dozing.Load()
	})
	if every := node.cfg.TickEvery; maxBusyDoze < 2*every {
		t.Fatalf("maxBusyDoze %v is not above two ticks of %v: a busy doze would never begin", maxBusyDoze, every)
	}
	// Ticked while dozing, the node dozes on at the same period.
	resets := clock.resetCount()
	for range 5 {
		clock.fire(t)
	}
	waitUntil(t, "the node handles its ticks", func() bool { return node.tick.dozing.Load() })
	if on, d := clock.running(); !on || d != maxBusyDoze {
		t.Fatalf("after more ticks the clock runs %v at %v, want at %v", on, d, maxBusyDoze)
	}

	gate.open()
	if r := await[*result](root, "the gated task's result"); r.Task != 1 || decodeInt64(r.Value) != 42 {
		t.Fatalf("result %+v, want task 1's 42", r)
	}
	waitUntil(t, "the worker running dry rouses the clock", func() bool {
		on, d := clock.running()
		return clock.resetCount() > resets && (!on || d == node.cfg.TickEvery)
	})
}
