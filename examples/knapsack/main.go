// Command knapsack solves a 0/1 knapsack problem by branch and bound, in
// the order of a serial search or in the order a first parallel version
// gets by accident:
//
//	go run ./examples/knapsack run knapsack -n 60 --form ordered
//	go run ./examples/knapsack run knapsack -n 60 --form natural --workers 1
//
// Its result counts the nodes the search looked at: bench/order.sh
// compares the two forms with the serial search (bench/README.md, "Order
// in a branch-and-bound search").
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

func main() { cli.Main(config) }

var config = cli.Config{Name: "knapsack", Programs: []cli.Program{{
	Name:    "knapsack",
	Summary: "0/1 knapsack by branch and bound (-n ITEMS --seed S --form ordered|natural)",
	Options: func() cli.Options { return new(options) },
}}}

// options are a run's options, bound to its flags.
type options struct {
	n    int
	seed uint64
	form string
}

func (o *options) Flags(fs *flag.FlagSet) {
	fs.IntVar(&o.n, "n", 50, "items")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the items")
	fs.StringVar(&o.form, "form", "ordered", "ordered (the serial search's order) or natural (fork the promising child)")
}

func (o *options) Job() (cli.Job, error) {
	task, ok := map[string]*tsys.Task[Node, Found]{"ordered": Ordered, "natural": Natural}[o.form]
	if !ok {
		return nil, fmt.Errorf("--form %q: want ordered or natural", o.form)
	}
	if o.n < 1 || o.n > 10_000 {
		return nil, fmt.Errorf("-n %d: want 1 to 10000 items", o.n)
	}
	return job{in: Instance{Seed: o.seed, N: int32(o.n)}, form: o.form, task: task}, nil
}

type job struct {
	in   Instance
	form string
	task *tsys.Task[Node, Found]
}

func (j job) Params() map[string]any {
	return map[string]any{"n": j.in.N, "seed": j.in.Seed, "form": j.form}
}

// Run searches under a job number of its own, so that the bound starts
// from nothing on every node. A node pruned by a value another task of
// this process reached returns less than that value, so the answer is the
// larger of the two.
func (j job) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	in := j.in
	in.Job = rand.Uint32()
	f, st, err := tsys.Run(ctx, rt, j.task, Node{Instance: in})
	f.Best = max(f.Best, in.problem().best.Load())
	return result(f), st, err
}

func (j job) Serial() (cli.Result, error) {
	return result(serial(j.in.make(), Node{Instance: j.in})), nil
}

// Verify compares the best value with the serial search's.
func (j job) Verify(r cli.Result) (bool, error) {
	want := serial(j.in.make(), Node{Instance: j.in}).Best
	if got := r.Value.(map[string]int64)["best"]; got != want {
		return true, fmt.Errorf("best value %d, the serial search's %d", got, want)
	}
	return true, nil
}

func result(f Found) cli.Result {
	return cli.Result{
		Value: map[string]int64{"best": f.Best, "nodes": f.Nodes},
		Text:  fmt.Sprintf("best value %d, %d nodes looked at", f.Best, f.Nodes),
	}
}
