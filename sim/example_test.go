package sim_test

import (
	"fmt"

	"github.com/tsys-go/tsys/sim"
)

// A tree held in memory, as tsys advise records it, replayed on two nodes
// of one worker: a root that spawns four tasks of 10 ms.
func ExampleNewReplay() {
	tree := sim.Tree{Parent: []int32{-1, 0, 0, 0, 0}, WorkNs: []int64{0, 10e6, 10e6, 10e6, 10e6}}
	w, err := sim.NewReplay("example", tree)
	if err != nil {
		panic(err)
	}
	m := sim.Defaults()
	m.Nodes, m.Workers = 1, 2
	r, err := sim.Run(sim.Config{Model: m, Workload: w, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Work, r.Makespan.Round(1e6), r.Tasks)
	// Output: 40ms 20ms 5
}
