// Command mergesort sorts random integers with a parallel merge sort, on
// one machine or as a cluster of its own binary:
//
//	go run ./examples/mergesort run sort -n 5000000
//	go build -o /tmp/mergesort ./examples/mergesort
//	/tmp/mergesort run sort -n 5000000 --nodes 2 --workers 1
//
// It is a user's program on tsys: its main hands its one program to
// cli.Main, which gives it tsys's verbs (run, node, drain, jobs, ...).
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

func main() { cli.Main(config) }

var config = cli.Config{Name: "mergesort", Programs: []cli.Program{{
	Name:    "sort",
	Summary: "sort N random ints with a parallel merge sort (-n N --leaf L --seed S)",
	Options: func() cli.Options { return new(job) },
}}}

// job sorts n random ints; it is also a cli.SerialJob and a cli.Verifier.
type job struct {
	n, leaf int
	seed    uint64
}

// Flags binds the job's fields to the program's flags: a job is its
// own options.
func (j *job) Flags(fs *flag.FlagSet) {
	fs.IntVar(&j.n, "n", 1_000_000, "how many ints")
	fs.IntVar(&j.leaf, "leaf", 4096, "pieces of at most this many ints are sorted serially")
	fs.Uint64Var(&j.seed, "seed", 1, "seed of the random input")
}

// Job checks the parsed options: the job is then what runs.
func (j *job) Job() (cli.Job, error) {
	if j.n < 0 || j.leaf < 1 {
		return nil, fmt.Errorf("-n %d, -leaf %d: want n >= 0 and leaf >= 1", j.n, j.leaf)
	}
	return *j, nil
}

func (j job) input() []int {
	r := rand.New(rand.NewPCG(j.seed, 0))
	xs := make([]int, j.n)
	for i := range xs {
		xs[i] = r.IntN(1 << 30)
	}
	return xs
}

func (j job) Params() map[string]any { return map[string]any{"n": j.n, "leaf": j.leaf, "seed": j.seed} }

func (j job) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	sorted, st, err := tsys.Run(ctx, rt, Sort, Piece{Xs: j.input(), Leaf: j.leaf})
	return result(sorted), st, err
}

func (j job) Serial() (cli.Result, error) {
	xs := j.input()
	slices.Sort(xs)
	return result(xs), nil
}

// Verify compares with the standard library's sort of the same input.
func (j job) Verify(r cli.Result) (bool, error) {
	want, _ := j.Serial()
	if r.Value != want.Value {
		return true, fmt.Errorf("got %v, want %v", r.Value, want.Value)
	}
	return true, nil
}

// result summarises a sorted slice: its length, whether it is sorted, and
// a checksum of its order, so that --json stays small.
func result(xs []int) cli.Result {
	var sum uint64
	for i, x := range xs {
		sum = sum*31 + uint64(x) ^ uint64(i)
	}
	v := fmt.Sprintf("%d ints, sorted %v, checksum %016x", len(xs), slices.IsSorted(xs), sum)
	return cli.Result{Value: v, Text: v}
}
