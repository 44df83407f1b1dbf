// Command treesum sums two trees of the finest grain there is, written
// with tsys.Pair and tsys.Both and no cutoff, whose cutoff go generate
// writes (cmd/tsysclone):
//
//	go run ./examples/treesum run sum --tree range -n 10000000 --form pair
//	go run ./examples/treesum run sum --tree pointer --depth 20 --form both
//	go run ./examples/treesum run sum --tree pointer --depth 20 --form fork
//
// The range tree sums a leaf of a few nanoseconds over [0, n) by halving
// the range down to single leaves; the pointer tree sums the values of a
// complete binary tree. --form fork runs the same recursions as registered
// tasks that Fork; --as-written runs Pair and Both as written, without the
// generated cutoff, to show what it saves.
package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

func main() { cli.Main(config) }

var config = cli.Config{Name: "treesum", Programs: []cli.Program{{
	Name:    "sum",
	Summary: "sum a tree of tiny leaves with Pair, Both or Fork (--tree range -n N | --tree pointer --depth D; --form pair|both|fork; --as-written)",
	Options: func() cli.Options { return new(options) },
}}}

// options are a run's options, bound to its flags.
type options struct {
	tree, form string
	n, depth   int
	asWritten  bool
}

func (o *options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.tree, "tree", "range", "range (a range halved down to single leaves) or pointer (a complete binary tree)")
	fs.IntVar(&o.n, "n", 10_000_000, "leaves of the range tree")
	fs.IntVar(&o.depth, "depth", 20, "depth of the pointer tree: 2^depth-1 nodes")
	fs.StringVar(&o.form, "form", "pair", "pair or both (closures, their cutoff generated) or fork (a registered task)")
	fs.BoolVar(&o.asWritten, "as-written", false, "run pair or both as written, without the generated cutoff")
}

func (o *options) Job() (cli.Job, error) {
	switch {
	case o.tree != "range" && o.tree != "pointer":
		return nil, fmt.Errorf("--tree %q: want range or pointer", o.tree)
	case o.form != "pair" && o.form != "both" && o.form != "fork":
		return nil, fmt.Errorf("--form %q: want pair, both or fork", o.form)
	case o.asWritten && o.form == "fork":
		return nil, fmt.Errorf("--as-written with --form fork: a registered task has no cutoff to leave out; drop one of them")
	case o.tree == "range" && o.n < 1:
		return nil, fmt.Errorf("-n %d: want at least 1 leaf", o.n)
	case o.tree == "pointer" && (o.depth < 0 || o.depth > 26):
		return nil, fmt.Errorf("--depth %d: want 0 to 26", o.depth)
	}
	j := job{options: *o}
	if o.tree == "pointer" {
		var count int64
		j.root = makeTree(o.depth, &count)
	}
	return j, nil
}

// job is a run's sum; it is also a cli.SerialJob and a cli.Verifier.
type job struct {
	options
	root *Node
}

func (j job) Params() map[string]any {
	p := map[string]any{"tree": j.tree, "form": j.form, "as_written": j.asWritten}
	if j.tree == "range" {
		p["n"] = j.n
	} else {
		p["depth"] = j.depth
	}
	return p
}

func (j job) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	if j.tree == "range" {
		v, st, err := runRange(ctx, rt, j.form, j.asWritten, j.n)
		return result(v), st, err
	}
	v, st, err := runTree(ctx, rt, j.form, j.asWritten, j.root)
	return result(v), st, err
}

// runRange sums the range tree of n leaves in the given form.
func runRange(ctx context.Context, rt *tsys.Runtime, form string, asWritten bool, n int) (uint64, tsys.Stats, error) {
	if form == "fork" {
		return tsys.Run(ctx, rt, RangeFork, Span{0, n})
	}
	sum := map[string]func(c *tsys.Ctx, lo, hi int) uint64{"pair": rangePairClone, "both": rangeBothClone}[form]
	if asWritten {
		sum = map[string]func(c *tsys.Ctx, lo, hi int) uint64{"pair": rangePair, "both": rangeBoth}[form]
	}
	return tsys.Do(ctx, rt, func(c *tsys.Ctx) uint64 { return sum(c, 0, n) })
}

// runTree sums the pointer tree under root in the given form.
func runTree(ctx context.Context, rt *tsys.Runtime, form string, asWritten bool, root *Node) (int64, tsys.Stats, error) {
	if form == "fork" {
		return tsys.Run(ctx, rt, TreeFork, root)
	}
	sum := map[string]func(c *tsys.Ctx, n *Node) int64{"pair": treePairClone, "both": treeBothClone}[form]
	if asWritten {
		sum = map[string]func(c *tsys.Ctx, n *Node) int64{"pair": treePair, "both": treeBoth}[form]
	}
	return tsys.Do(ctx, rt, func(c *tsys.Ctx) int64 { return sum(c, root) })
}

func (j job) Serial() (cli.Result, error) {
	if j.tree == "range" {
		return result(rangeSerial(0, j.n)), nil
	}
	return result(treeSerial(j.root)), nil
}

// Verify compares with the serial recursion's sum.
func (j job) Verify(r cli.Result) (bool, error) {
	want, _ := j.Serial()
	if r.Value != want.Value {
		return true, fmt.Errorf("sum %v, the serial recursion's %v", r.Value, want.Value)
	}
	return true, nil
}

// result is a sum, as a string: its 64 bits would not survive JSON's
// numbers.
func result[T uint64 | int64](v T) cli.Result {
	s := fmt.Sprint(v)
	return cli.Result{Value: s, Text: "sum " + s}
}
