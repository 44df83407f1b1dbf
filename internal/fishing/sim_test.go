package fishing_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/schedspec"
	"github.com/tsys-go/tsys/internal/xorshift"
	"github.com/tsys-go/tsys/sim"
)

// The fishing policy in the simulator (package sim): the real policy on
// virtual nodes of 4 workers, a tree of 2^12 leaves of 1 ms, 100 us
// between nodes, no message overhead.
func simulate(t *testing.T, sched string, nodes int, tweak func(*sim.Model)) *sim.Result {
	t.Helper()
	f, err := schedspec.Parse(sched)
	if err != nil {
		t.Fatal(err)
	}
	m := sim.Defaults()
	m.Nodes, m.Workers = nodes, 4
	m.Latency, m.CrossLatency, m.Overhead = 100*time.Microsecond, 100*time.Microsecond, 0
	m.Tick = time.Millisecond
	if tweak != nil {
		tweak(&m)
	}
	r, err := sim.Run(sim.Config{Model: m, Workload: &sim.EP{Leaves: 1 << 12, Leaf: time.Millisecond}, Sched: f, Seed: 1})
	if err != nil {
		t.Fatalf("%s on %d nodes: %v", sched, nodes, err)
	}
	for i, n := range r.PerNode {
		if n.Tasks == 0 {
			t.Errorf("%s on %d nodes: node %d ran no task", sched, nodes, i)
		}
	}
	if ratio := float64(r.Makespan) / float64(r.LowerBound); ratio > 1.3 {
		t.Errorf("%s on %d nodes: makespan %v, %.3f x the lower bound", sched, nodes, r.Makespan, ratio)
	}
	return r
}

// TestSimTwoNodes: on two nodes every victim rule spreads the tree within
// 30% of the bound, moving under 1% of its tasks.
func TestSimTwoNodes(t *testing.T) {
	for _, v := range []string{"fishing:random", "fishing:load", "fishing:zone"} {
		r := simulate(t, v, 2, nil)
		t.Logf("2 nodes, %s: makespan %v, %d tasks moved in %d messages", v, r.Makespan, r.TasksMoved, r.Messages)
		if r.TasksMoved*100 > r.Tasks {
			t.Errorf("%s: %d tasks moved between 2 nodes", v, r.TasksMoved)
		}
	}
}

// TestSimFourNodes: four nodes, with 100 us or 1 ms between them.
func TestSimFourNodes(t *testing.T) {
	for _, d := range []time.Duration{100 * time.Microsecond, time.Millisecond} {
		for _, v := range []string{"fishing:random", "fishing:load", "fishing:zone"} {
			r := simulate(t, v, 4, func(m *sim.Model) { m.Latency, m.CrossLatency = d, d })
			t.Logf("4 nodes, %v apart, %s: makespan %v, %d tasks moved", d, v, r.Makespan, r.TasksMoved)
		}
	}
}

// TestSimZones: two zones of two nodes, 20 times further apart between
// zones than inside one. Zone-aware victims keep most of the traffic
// inside a zone, where random victims send about two thirds of it across.
func TestSimZones(t *testing.T) {
	share := map[string]float64{}
	for _, v := range []string{"fishing:random", "fishing:zone"} {
		r := simulate(t, v, 4, func(m *sim.Model) { m.Zones, m.CrossLatency = 2, 2*time.Millisecond })
		share[v] = float64(r.CrossZone) / float64(r.Messages)
		t.Logf("2x2 nodes, %s: makespan %v, %d tasks moved, %d of %d messages across zones", v, r.Makespan, r.TasksMoved, r.CrossZone, r.Messages)
	}
	if share["fishing:zone"] >= 0.5 || share["fishing:zone"] >= share["fishing:random"] {
		t.Errorf("zone-aware victims sent %.0f%% of the messages across zones, random ones %.0f%%: want under half, and fewer than random", 100*share["fishing:zone"], 100*share["fishing:random"])
	}
}

// TestPrefetchLosesNoTask is a property test of asking ahead of need in
// the simulator: on random clusters (2 to 5 nodes of 1 to 3 workers, 20 us
// to 1 ms apart), random marks and lending rules, a node joining and one
// draining mid-run, every tree node runs exactly once (the tasks and work
// are those of a run on one node); and with a node dying mid-run as well,
// the job still ends, every task lent to the dead node run again.
func TestPrefetchLosesNoTask(t *testing.T) {
	w := func() sim.Workload { return &sim.Fib{N: 18, Leaf: 20 * time.Microsecond} }
	one := func() *sim.Result {
		m := sim.Defaults()
		m.Nodes, m.Workers = 1, 1
		r, err := sim.Run(sim.Config{Model: m, Workload: w(), Sched: mustSched(t, "local"), Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}()
	var prefetched int64
	rng := xorshift.Seed(38)
	for seed := range uint64(16) {
		m := sim.Defaults()
		m.Nodes, m.Workers = 2+rng.Below(4), 1+rng.Below(3)
		m.Latency = time.Duration(20+rng.Below(981)) * time.Microsecond
		m.CrossLatency = m.Latency
		sched := fmt.Sprintf("fishing:low=%d,lend=%s,inflight=%d", 1+rng.Below(8), []string{"half", "adaptive"}[rng.Below(2)], 1+rng.Below(2))
		dies := seed%2 == 1
		if m.Nodes > 2 {
			m.Joins = map[int]time.Duration{m.Nodes - 1: time.Duration(rng.Below(3)) * time.Millisecond}
		}
		if m.Nodes > 3 {
			m.Drains = map[int]time.Duration{1: time.Duration(1+rng.Below(3)) * time.Millisecond}
		}
		if dies {
			m.Fail, m.FailAt, m.Detect = m.Nodes-1, time.Duration(1+rng.Below(4))*time.Millisecond, 5*time.Millisecond
			m.Joins = nil
		}
		r, err := sim.Run(sim.Config{Model: m, Workload: w(), Sched: mustSched(t, sched), Seed: seed})
		if err != nil {
			t.Fatalf("seed %d, %s on %dx%d, %v apart: %v", seed, sched, m.Nodes, m.Workers, m.Latency, err)
		}
		prefetched += r.Prefetched
		t.Logf("seed %d, %s on %dx%d, %v apart, dies %v: %d tasks moved, %d prefetched, %d ran dry", seed, sched, m.Nodes, m.Workers, m.Latency, dies, r.TasksMoved, r.Prefetched, r.RanDry)
		if !dies && (r.Tasks != one.Tasks || r.Work != one.Work) {
			t.Errorf("seed %d, %s on %dx%d: %d tasks and work %v, one node %d and %v: a task lost or run twice",
				seed, sched, m.Nodes, m.Workers, r.Tasks, r.Work, one.Tasks, one.Work)
		}
		if dies && r.Tasks < one.Tasks {
			t.Errorf("seed %d, %s on %dx%d with node %d dead: %d tasks, fewer than one node's %d",
				seed, sched, m.Nodes, m.Workers, m.Fail, r.Tasks, one.Tasks)
		}
	}
	if prefetched == 0 {
		t.Error("no task was borrowed ahead of need in any run: the test tests nothing")
	}
}

func mustSched(t *testing.T, s string) schedspec.Factory {
	t.Helper()
	f, err := schedspec.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestLifelinesQuietTheThieves: 64 simulated nodes of one worker, a tree
// of 256 leaves of 1 ms, so that most nodes are dry for most of the run
// and starve: with lifelines the thieves wait on them rather than
// asking on, and the run moves the same work in a sixth fewer messages,
// with fewer refusals, and is no slower.
func TestLifelinesQuietTheThieves(t *testing.T) {
	run := func(sched string) *sim.Result {
		f, err := schedspec.Parse(sched)
		if err != nil {
			t.Fatal(err)
		}
		m := sim.Defaults()
		m.Nodes, m.Workers, m.Latency = 64, 1, 100*time.Microsecond
		r, err := sim.Run(sim.Config{Model: m, Workload: &sim.EP{Leaves: 256, Leaf: time.Millisecond}, Sched: f, Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", sched, err)
		}
		return r
	}
	off, on := run("fishing:lifelines=off"), run("fishing:lifelines=2")
	t.Logf("without lifelines: %v, %d messages, %d refusals; with: %v, %d messages, %d refusals, %d lifelines",
		off.Makespan, off.Messages, off.Refusals, on.Makespan, on.Messages, on.Refusals, on.Lifelines)
	if off.Lifelines != 0 || on.Lifelines == 0 {
		t.Fatalf("lifelines sent: %d off, %d on", off.Lifelines, on.Lifelines)
	}
	if on.Tasks != off.Tasks || on.Work != off.Work {
		t.Fatalf("with lifelines %d tasks, %v of work; without %d, %v", on.Tasks, on.Work, off.Tasks, off.Work)
	}
	if on.Messages*6 > off.Messages*5 || on.Refusals >= off.Refusals {
		t.Errorf("with lifelines %d messages and %d refusals, without %d and %d: want a sixth fewer messages, and fewer refusals", on.Messages, on.Refusals, off.Messages, off.Refusals)
	}
	if on.Makespan > off.Makespan*21/20 {
		t.Errorf("with lifelines %v, without %v: want no more than 5%% slower", on.Makespan, off.Makespan)
	}
	// By default (auto), a cluster of 64 nodes has none: as without.
	if def := run("fishing"); def.Makespan != off.Makespan || def.Messages != off.Messages || def.Lifelines != 0 {
		t.Errorf("by default on 64 nodes: %v, %d messages, %d lifelines; want as without lifelines (%v, %d)", def.Makespan, def.Messages, def.Lifelines, off.Makespan, off.Messages)
	}
}
