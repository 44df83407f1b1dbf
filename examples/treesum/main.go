// Command treesum runs three recursions of the finest grain, written with
// the closure forms and no cutoff, against a registered task's Fork: a
// sum over a range halved down to single leaves, a sum over a pointer
// tree, and the merge sort of examples/mergesort down to single elements.
//
//	go run ./examples/treesum run sum --tree range -n 10000000 --form pair
//	go run ./examples/treesum run sum --tree pointer --depth 20 --form both
//	go run ./examples/treesum run sum --tree sort -n 1000000 --form pair
//	go run ./examples/treesum run sum --tree pointer --depth 20 --form fork
//
// The range tree sums a leaf of a few nanoseconds over [0, n); the
// pointer tree sums the values of a complete binary tree; the sort sorts n
// random ints into new memory and answers with a checksum. --form pair
// and both run Pair and Both through the cutoff go generate writes
// (cmd/tsysclone); --as-written runs them without it, to show what it
// saves. --form fork runs the same recursions as registered tasks.
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

var config = cli.Config{Name: "treesum", Programs: []cli.Program{{
	Name:    "sum",
	Summary: "a recursion of tiny leaves with Pair, Both or Fork (--tree range -n N | --tree pointer --depth D | --tree sort -n N; --form pair|both|fork; --as-written)",
	Options: func() cli.Options { return new(options) },
}}}

// options are a run's options, bound to its flags.
type options struct {
	tree, form string
	n, depth   int
	asWritten  bool
}

func (o *options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.tree, "tree", "range", "range (a range halved down to single leaves), pointer (a complete binary tree) or sort (a merge sort down to single elements)")
	fs.IntVar(&o.n, "n", 10_000_000, "leaves of the range tree, or ints to sort")
	fs.IntVar(&o.depth, "depth", 20, "depth of the pointer tree: 2^depth-1 nodes")
	fs.StringVar(&o.form, "form", "pair", "pair or both (closures), their cutoff generated, or fork (a registered task)")
	fs.BoolVar(&o.asWritten, "as-written", false, "run pair or both as written, without the generated cutoff")
}

func (o *options) Job() (cli.Job, error) {
	switch {
	case o.tree != "range" && o.tree != "pointer" && o.tree != "sort":
		return nil, fmt.Errorf("--tree %q: want range, pointer or sort", o.tree)
	case o.form != "pair" && o.form != "both" && o.form != "fork":
		return nil, fmt.Errorf("--form %q: want pair, both or fork", o.form)
	case o.asWritten && o.form == "fork":
		return nil, fmt.Errorf("--as-written with --form fork: a registered task has no generated cutoff to leave out; drop one of them")
	case o.tree == "range" && o.n < 1:
		return nil, fmt.Errorf("-n %d: want at least 1 leaf", o.n)
	case o.tree == "sort" && o.n < 0:
		return nil, fmt.Errorf("-n %d: want at least 0 ints", o.n)
	case o.tree == "pointer" && (o.depth < 0 || o.depth > 26):
		return nil, fmt.Errorf("--depth %d: want 0 to 26", o.depth)
	}
	return job{options: *o, in: makeInput(o.tree, o.n, o.depth)}, nil
}

// input is what a recursion runs over: the pointer tree's root, or the
// ints to sort.
type input struct {
	root *Node
	xs   []int
}

func makeInput(tree string, n, depth int) input {
	switch tree {
	case "pointer":
		var count int64
		return input{root: makeTree(depth, &count)}
	case "sort":
		r := rand.New(rand.NewPCG(1, 2))
		xs := make([]int, n)
		for i := range xs {
			xs[i] = r.IntN(1 << 30)
		}
		return input{xs: xs}
	}
	return input{}
}

// job is a run; it is also a cli.SerialJob and a cli.Verifier.
type job struct {
	options
	in input
}

func (j job) Params() map[string]any {
	p := map[string]any{"tree": j.tree, "form": j.form, "as_written": j.asWritten}
	if j.tree == "pointer" {
		p["depth"] = j.depth
	} else {
		p["n"] = j.n
	}
	return p
}

func (j job) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	v, st, err := run(ctx, rt, j.tree, j.form, j.asWritten, j.n, j.in)
	return result(v), st, err
}

// run runs the recursion tree over in (the range tree over [0, n)) in
// form, and returns its answer: a sum, or the sort's checksum.
func run(ctx context.Context, rt *tsys.Runtime, tree, form string, asWritten bool, n int, in input) (uint64, tsys.Stats, error) {
	gen := !asWritten
	switch tree {
	case "range":
		if form == "fork" {
			return tsys.Run(ctx, rt, RangeFork, Span{0, n})
		}
		f := inForm(form, gen, rangePair, rangePairClone, rangeBoth, rangeBothClone)
		return tsys.Do(ctx, rt, func(c *tsys.Ctx) uint64 { return f(c, 0, n) })
	case "pointer":
		if form == "fork" {
			v, st, err := tsys.Run(ctx, rt, TreeFork, in.root)
			return uint64(v), st, err
		}
		f := inForm(form, gen, treePair, treePairClone, treeBoth, treeBothClone)
		return tsys.Do(ctx, rt, func(c *tsys.Ctx) uint64 { return uint64(f(c, in.root)) })
	}
	if form == "fork" {
		xs, st, err := tsys.Run(ctx, rt, SortFork, in.xs)
		return checksum(xs), st, err
	}
	f := inForm(form, gen, sortPair, sortPairClone, sortBoth, sortBothClone)
	return tsys.Do(ctx, rt, func(c *tsys.Ctx) uint64 { return checksum(f(c, in.xs)) })
}

// inForm is a recursion written with Pair (form "pair") or with Both,
// through the cutoff go generate wrote (gen) or as written.
func inForm[F any](form string, gen bool, pair, pairClone, both, bothClone F) F {
	switch {
	case form == "pair" && gen:
		return pairClone
	case form == "pair":
		return pair
	case gen:
		return bothClone
	}
	return both
}

// serial is run's answer by the plain recursion.
func serial(tree string, n int, in input) uint64 {
	switch tree {
	case "range":
		return rangeSerial(0, n)
	case "pointer":
		return uint64(treeSerial(in.root))
	}
	return checksum(sortSerial(in.xs))
}

// checksum is a sorted slice's answer: its elements weighted by their
// places, or 0 if it is not sorted.
func checksum(xs []int) uint64 {
	var s uint64
	for i, x := range xs {
		if i > 0 && xs[i-1] > x {
			return 0
		}
		s += uint64(i+1) * uint64(x)
	}
	return s
}

func (j job) Serial() (cli.Result, error) { return result(serial(j.tree, j.n, j.in)), nil }

// Verify compares with the serial recursion's answer.
func (j job) Verify(r cli.Result) (bool, error) {
	want, _ := j.Serial()
	if r.Value != want.Value {
		return true, fmt.Errorf("answer %v, the serial recursion's %v", r.Value, want.Value)
	}
	return true, nil
}

// result is an answer, as a string: its 64 bits would not survive JSON's
// numbers.
func result(v uint64) cli.Result {
	s := fmt.Sprint(v)
	return cli.Result{Value: s, Text: "answer " + s}
}
