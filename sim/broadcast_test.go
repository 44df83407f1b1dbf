package sim

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps/uts"
	"github.com/tsys-go/tsys/internal/hog"
	"github.com/tsys-go/tsys/internal/schedspec"
)

// TestBroadcastIsPerMessage: a status broadcast delivered by one event per
// arrival time (broadcast, status) gives exactly the Result of one event
// per message, the model's definition: the same makespan, counts, events
// and per-node figures, under the pushing policies, whose LoadReport acts
// on what it hears, and fishing, which never reports; in one zone and two,
// with the two delays equal, with a hog, a node that dies, and nodes that
// join and drain.
func TestBroadcastIsPerMessage(t *testing.T) {
	type variant struct {
		name  string
		app   string
		nodes int
		tweak func(*Model)
	}
	variants := []variant{
		{"plain", "ep:leaves=16384", 16, nil},
		{"zones", "ep:leaves=16384", 32, func(m *Model) { m.Zones = 2 }},
		{"zones-equal-delay", "ep:leaves=8192", 24, func(m *Model) { m.Zones = 3; m.CrossLatency = m.Latency }},
		{"zones-uts", "", 48, func(m *Model) { m.Zones = 2; m.Workers = 2 }},
		{"hog", "ep:leaves=16384", 16, func(m *Model) {
			m.Hogs = map[int]hog.Spec{3: {Fraction: 0.5}, 5: {Fraction: 0.5, On: 3 * time.Millisecond, Off: 2 * time.Millisecond}}
		}},
		{"fail", "ep:leaves=16384", 32, func(m *Model) { m.Fail, m.FailAt, m.Detect = 7, 3*time.Millisecond, 10*time.Millisecond }},
		{"fail-zones", "fib:n=18,leaf=5us", 64, func(m *Model) {
			m.Zones, m.Fail, m.FailAt, m.Detect = 2, 40, 2*time.Millisecond, 5*time.Millisecond
		}},
		{"elastic", "ep:leaves=8192", 16, func(m *Model) {
			m.Joins = map[int]time.Duration{9: 4 * time.Millisecond, 10: 4 * time.Millisecond}
			m.Drains = map[int]time.Duration{3: 2 * time.Millisecond, 12: 9 * time.Millisecond}
		}},
		{"no-overhead", "flat:iters=4000", 20, func(m *Model) { m.Overhead, m.Wake, m.Zones = 0, 0, 2 }},
	}
	for _, sched := range []string{"balance", "ratebalance", "ratebalance:period=5ms", "fishing"} {
		f, err := schedspec.Parse(sched)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range variants {
			w := smallUTS()
			if v.app != "" {
				if w, err = ParseWorkload(v.app); err != nil {
					t.Fatal(err)
				}
			}
			m := Defaults()
			m.Nodes = v.nodes
			if v.tweak != nil {
				v.tweak(&m)
			}
			for _, seed := range []uint64{1, 2} {
				name := fmt.Sprintf("%s %s seed %d", sched, v.name, seed)
				one, err := Run(Config{Model: m, Workload: w, Sched: f, Seed: seed})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				each, err := Run(Config{Model: m, Workload: w, Sched: f, Seed: seed, perMessage: true})
				if err != nil {
					t.Fatalf("%s, per message: %v", name, err)
				}
				one.Seconds, each.Seconds = 0, 0
				if !reflect.DeepEqual(one, each) {
					t.Errorf("%s: the broadcast's result differs from the per-message one:\n%+v\n%+v", name, one, each)
				}
				if sched != "fishing" && one.StatusMessages == 0 {
					t.Errorf("%s: no status message, nothing compared", name)
				}
			}
		}
	}
}

// smallUTS is a UTS tree of about 20,000 nodes: a workload whose last
// child is not a call, small enough for a test that runs it many times.
func smallUTS() Workload {
	p := uts.DefaultParams()
	p.Type, p.Shape, p.GenMx, p.B0, p.RootSeed = uts.Geometric, uts.Fixed, 7, 4, 19
	return &UTS{Tree: uts.Tree{Name: "small", Params: p}, PerNode: 20 * time.Microsecond}
}
