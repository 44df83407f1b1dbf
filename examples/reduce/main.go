// Command reduce sums f(i) = sqrt(i) sin(i) over [0, N) in parallel: the
// reduction of a flat loop, split in halves down to a leaf that is a
// plain Go loop.
//
//	go run ./examples/reduce run sum -n 100000000
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

// Span is a piece of the sum: [Lo, Hi), summed serially once it holds at
// most Leaf terms.
type Span struct{ Lo, Hi, Leaf int64 }

// Sum sums f over a span. Its argument and result are plain values, so
// its pieces may run on any node.
var Sum *tsys.Task[Span, float64]

func init() { Sum = tsys.Register("reduce.sum", sum) }

func sum(c *tsys.Ctx, s Span) float64 {
	if s.Hi-s.Lo <= max(s.Leaf, 1) {
		return serialSum(s.Lo, s.Hi)
	}
	mid := s.Lo + (s.Hi-s.Lo)/2
	left := Sum.Fork(c, Span{s.Lo, mid, s.Leaf})
	right := sum(c, Span{mid, s.Hi, s.Leaf})
	// Always left + right, whichever finished first: the sum's rounding
	// depends on the split alone, so every run gives the same bits.
	return left.Join(c) + right
}

func f(i int64) float64 { x := float64(i); return math.Sqrt(x) * math.Sin(x) }

func serialSum(lo, hi int64) float64 {
	s := 0.0
	for i := lo; i < hi; i++ {
		s += f(i)
	}
	return s
}

var config = cli.Config{Name: "reduce", Programs: []cli.Program{{
	Name:    "sum",
	Summary: "sum of sqrt(i) sin(i) for i in [0, N) (-n N --leaf L)",
	Flags: func(fs *flag.FlagSet) func() (cli.Job, error) {
		n := fs.Int64("n", 10_000_000, "terms")
		leaf := fs.Int64("leaf", 1<<14, "pieces of at most this many terms are summed serially")
		return func() (cli.Job, error) {
			if *n < 0 || *leaf < 1 {
				return nil, fmt.Errorf("-n %d, -leaf %d: want n >= 0 and leaf >= 1", *n, *leaf)
			}
			return job{Span{0, *n, *leaf}}, nil
		}
	},
}}}

type job struct{ s Span }

func (j job) Params() map[string]any { return map[string]any{"n": j.s.Hi, "leaf": j.s.Leaf} }

func (j job) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	v, st, err := tsys.Run(ctx, rt, Sum, j.s)
	return result(v), st, err
}

func (j job) Serial() (cli.Result, error) { return result(serialSum(j.s.Lo, j.s.Hi)), nil }

// Verify compares with the serial loop, whose additions round in another
// order: they agree to a few units in the last place of the terms'
// magnitude, far inside 1e-9 of the sum of their absolute values.
func (j job) Verify(r cli.Result) (bool, error) {
	want := serialSum(j.s.Lo, j.s.Hi)
	scale := 0.0
	for i := j.s.Lo; i < j.s.Hi; i += max(1, (j.s.Hi-j.s.Lo)/1000) {
		scale = max(scale, math.Abs(f(i)))
	}
	got := r.Value.(float64)
	if d := math.Abs(got - want); d > 1e-9*scale*float64(max(j.s.Hi-j.s.Lo, 1)) {
		return true, fmt.Errorf("sum %.17g, serial %.17g (off by %g)", got, want, d)
	}
	return true, nil
}

func result(v float64) cli.Result { return cli.Result{Value: v, Text: fmt.Sprintf("%.12g", v)} }
