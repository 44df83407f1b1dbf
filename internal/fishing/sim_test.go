package fishing_test

import (
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/schedspec"
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
