package tsys_test

import (
	"context"
	"fmt"
	"math"

	"github.com/tsys-go/tsys/tsys"
)

// The examples of the package's doc (doc.go), which shows their code;
// internal/doccode compiles the doc's copy.

var Fib *tsys.Task[int, int]

func init() { Fib = tsys.Register("fibonacci", fibonacci) }

func fibonacci(c *tsys.Ctx, n int) int {
	if n < 2 {
		return n
	}
	a := Fib.Fork(c, n-1)  // a T-call, or a C-call when enough tasks exist
	b := fibonacci(c, n-2) // a plain call
	return a.Join(c) + b
}

// A task forks another and joins it: fibonacci, the package doc's first
// example, run as a job's root.
func Example_fib() {
	ctx := context.Background()
	rt := tsys.New(tsys.Workers(4))
	v, stats, err := tsys.Run(ctx, rt, Fib, 25)
	fmt.Println(v, err, stats.Spawns)
	// Output: 75025 <nil> 121392
}

// A reduction written with closures, as a job's root: the package doc's
// second example.
func Example_reduce() {
	ctx, rt := context.Background(), tsys.New()
	xs := []float64{1, 4, 9, 16}
	v, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) float64 {
		return tsys.Fold(c, 0, len(xs), func() float64 { return 0 },
			func(_ *tsys.Ctx, lo, hi int, s float64) float64 {
				for _, x := range xs[lo:hi] {
					s += math.Sqrt(x)
				}
				return s
			}, func(a, b float64) float64 { return a + b })
	})
	fmt.Println(v, err)
	// Output: 10 <nil>
}
