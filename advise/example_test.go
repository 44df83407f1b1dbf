package advise_test

import (
	"fmt"
	"time"

	"github.com/tsys-go/tsys/advise"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/sim"
)

// flat is a root task that spawns n leaves of cost each.
func flat(n int, cost time.Duration) sim.Tree {
	t := sim.Tree{Parent: []int32{-1}, WorkNs: []int64{0}}
	for range n {
		t.Parent = append(t.Parent, 0)
		t.WorkNs = append(t.WorkNs, int64(cost))
	}
	return t
}

// Two grains of the same 640 ms of work, weighed on up to 16 nodes of one
// worker: 4 leaves cannot keep more than 4 nodes busy, 64 can.
func ExampleAdvise() {
	m := advise.Machine{Workers: 1, Startup: 30 * time.Microsecond, PerByte: 1, Spawn: 100 * time.Nanosecond}
	var opts []advise.Option
	for _, leaves := range []int{4, 64} {
		t := flat(leaves, 640*time.Millisecond/time.Duration(leaves))
		opts = append(opts, advise.Option{Grain: fmt.Sprint(leaves), Inline: inline.Default(), Tree: t, T1: advise.Shape(t).Work})
	}
	a, err := advise.Advise(m, opts, advise.Question{Nodes: []int{1, 2, 4, 8, 16}})
	if err != nil {
		panic(err)
	}
	r := a.Recommended
	fmt.Printf("%s leaves on %d nodes under %s: %.2f s, efficiency %.2f\n", r.Grain, r.Nodes, r.Scheduler, r.Seconds, r.Efficiency)
	// Output:
	// 64 leaves on 16 nodes under balance:cost=15us: 0.05 s, efficiency 0.77
}

// A subtree whose whole work is under the grain becomes one task.
func ExampleFold() {
	t := sim.Tree{Parent: []int32{-1, 0, 1, 1, 0}, WorkNs: []int64{10, 5, 1, 2, 30}}
	f := advise.Fold(t, 9)
	fmt.Println(f.Parent, f.WorkNs)
	// Output: [-1 0 0] [10 8 30]
}

func ExampleShape() {
	t := sim.Tree{Parent: []int32{-1, 0, 1, 1, 0}, WorkNs: []int64{10, 5, 1, 2, 30}}
	s := advise.Shape(t)
	fmt.Println(s.Tasks, s.Work, s.Span, s.Median)
	// Output: 5 48ns 40ns 5ns
}

// The recorder inflates every frame alike; a plain run's T1 sets the
// total.
func ExampleScale() {
	t := sim.Tree{Parent: []int32{-1, 0, 0}, WorkNs: []int64{20, 40, 40}}
	s, _ := advise.Scale(t, 50)
	fmt.Println(s.WorkNs)
	// Output: [10 20 20]
}

// Cesar et al.'s check: the time is least at 40 workers, the performance
// index at 23.
func ExampleMasterWorker() {
	m := advise.MasterWorker{Startup: 0.001, PerByte: 0.000001, Volume: 4096, Compute: 1.6}
	fmt.Printf("Tt(23) = %.4f ms, fastest %d, thriftiest %d\n", 1000*m.Time(23), m.FastestWorkers(100), m.ThriftiestWorkers(100))
	// Output: Tt(23) = 93.7433 ms, fastest 40, thriftiest 23
}

func ExampleGreedy() {
	g := advise.Greedy{Work: 10, Span: 0.5}
	fmt.Println(g.Lower(4), g.Upper(4), g.Parallelism())
	// Output: 2.5 3 20
}

// A round of load reports that costs 1 ms wants a period of 20 ms.
func ExampleBalancePeriod() {
	fmt.Printf("%.3f s\n", advise.BalancePeriod(0.001, 0, 0, 0))
	// Output: 0.020 s
}

// A hook of 100 ns wants 10 µs of work between hooks.
func ExampleMinGrain() {
	fmt.Printf("%.0f µs\n", 1e6*advise.MinGrain(100e-9))
	// Output: 10 µs
}
