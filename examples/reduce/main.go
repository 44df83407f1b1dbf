// Command reduce sums f(i) = sqrt(i) sin(i) over [0, N) in parallel: a
// registered loop (tsys.RegisterFold) whose body is the plain serial loop
// over a piece [lo, hi), with no grain to choose. The runtime
// cuts pieces off the range as other workers, or other nodes, grow
// hungry, and runs the range as one loop when none do; its pieces are
// plain values, so a node started from this binary (--nodes 2) borrows
// some.
//
//	go run ./examples/reduce run sum -n 100000000
//	go run ./examples/reduce run sum -n 100000000 --nodes 2
//	go run ./examples/reduce run sum -n 100000000 --leaf 16384
//
// Pieces cut by timing differ from run to run, and so do the last bits of
// the sum, which the additions round in another order. --leaf L asks for
// the fixed split instead (tsys.Grain): halves down to L terms, the same
// pieces in every run, so the sum is the same bits whatever the schedule.
// The advise verb (package advise) weighs
// the fixed splits its Program.Grain names on this machine's costs and
// says which to run, on how many nodes, under which scheduler; this
// binary leaves it out, so that it links the library alone, and its test
// adds it as a program that wants it would:
//
//	config.Commands = append(config.Commands, advise.Command(config))
package main

import (
	"context"
	"flag"
	"fmt"
	"math"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

func main() { cli.Main(config) }

// Sum is the loop: its body adds f over a piece of the range, which the
// runtime splits, to the piece's sum. Its environment (none) and result
// are plain values, so its pieces may run on any node.
var Sum = tsys.RegisterFold("reduce.sum",
	func() float64 { return 0 },
	func(_ *tsys.Ctx, _ struct{}, lo, hi int, s float64) float64 { return s + serialSum(lo, hi) },
	func(a, b float64) float64 { return a + b })

// split is the root task's argument: the range and how to split it.
type split struct {
	N, Leaf int
}

// SumAll is the job's root: the loop over the whole range.
var SumAll = tsys.Register("reduce.sumall", func(c *tsys.Ctx, sp split) float64 {
	var opts []tsys.LoopOption
	if sp.Leaf > 0 {
		opts = append(opts, tsys.Grain(sp.Leaf))
	}
	return Sum.Call(c, struct{}{}, 0, sp.N, opts...)
})

func f(i int) float64 { x := float64(i); return math.Sqrt(x) * math.Sin(x) }

func serialSum(lo, hi int) float64 {
	s := 0.0
	for i := lo; i < hi; i++ {
		s += f(i)
	}
	return s
}

var config = cli.Config{Name: "reduce", Programs: []cli.Program{{
	Name:    "sum",
	Summary: "sum of sqrt(i) sin(i) for i in [0, N) (-n N --leaf L)",
	// advise weighs these fixed splits. The adaptive split
	// (--leaf 0) cuts pieces only for hungry workers, so one worker's
	// recording of it is one piece, which says nothing of a cluster.
	Grain:   &cli.Grain{Flag: "leaf", Values: []string{"16384", "65536", "262144", "1048576"}},
	Options: func() cli.Options { return new(job) },
}}}

type job struct {
	n, leaf int
}

// Flags binds the job's fields to the program's flags: a job is its
// own options.
func (j *job) Flags(fs *flag.FlagSet) {
	fs.IntVar(&j.n, "n", 10_000_000, "terms")
	fs.IntVar(&j.leaf, "leaf", 0, "split in halves down to pieces of at most this many terms, the same pieces (and sum) in every run; 0: the runtime sizes the pieces")
}

// Job checks the parsed options: the job is then what runs.
func (j *job) Job() (cli.Job, error) {
	if j.n < 0 || j.leaf < 0 {
		return nil, fmt.Errorf("-n %d, --leaf %d: want n >= 0 and leaf >= 0 (0: the runtime splits)", j.n, j.leaf)
	}
	return *j, nil
}

func (j job) Params() map[string]any {
	return map[string]any{"n": j.n, "leaf": j.leaf}
}

func (j job) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	v, st, err := tsys.Run(ctx, rt, SumAll, split{N: j.n, Leaf: j.leaf})
	return result(v), st, err
}

func (j job) Serial() (cli.Result, error) { return result(serialSum(0, j.n)), nil }

// Verify compares with the serial loop, whose additions round in another
// order: they agree to a few units in the last place of the terms'
// magnitude, far inside 1e-9 of the sum of their absolute values.
func (j job) Verify(r cli.Result) (bool, error) {
	want := serialSum(0, j.n)
	scale := 0.0
	for i := 0; i < j.n; i += max(1, j.n/1000) {
		scale = max(scale, math.Abs(f(i)))
	}
	got := r.Value.(float64)
	if d := math.Abs(got - want); d > 1e-9*scale*float64(max(j.n, 1)) {
		return true, fmt.Errorf("sum %.17g, serial %.17g (off by %g)", got, want, d)
	}
	return true, nil
}

func result(v float64) cli.Result { return cli.Result{Value: v, Text: fmt.Sprintf("%.12g", v)} }
