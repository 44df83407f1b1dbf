package tsys_test

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/tsys-go/tsys/tsys"
)

// A registered range loop: its body runs a whole piece [lo, hi) as a plain
// Go loop, and its pieces may run on other nodes (its environment and
// result are plain values). Loops are registered at init, as tasks are.
var exSqrtSum = tsys.RegisterRange("example.sqrtsum",
	func(c *tsys.Ctx, scale float64, lo, hi int) float64 {
		s := 0.0
		for i := lo; i < hi; i++ {
			s += scale * math.Sqrt(float64(i))
		}
		return s
	},
	func(a, b float64) float64 { return a + b })

// A loop run from inside a task, its result used by the task.
var exMean = tsys.Register("example.mean", func(c *tsys.Ctx, n int) float64 {
	return exSqrtSum.Run(c, 1, 0, n) / float64(n)
})

// Run a registered range loop as a job's root: no grain to choose.
func ExampleRegisterRange() {
	rt := tsys.New()
	v, _, err := tsys.Run(context.Background(), rt, exSqrtSum.Task(), exSqrtSum.Range(2, 0, 1_000_000))
	fmt.Printf("%.6g %v\n", v, err)
	// Output: 1.33333e+09 <nil>
}

// Run a loop from inside a task.
func ExampleLoop_Run() {
	v, _, _ := tsys.Run(context.Background(), tsys.New(), exMean, 10_000)
	fmt.Printf("%.4f\n", v)
	// Output: 66.6616
}

// Task and Range make a loop a job's root; the root's argument is a Span.
func ExampleLoop_Task() {
	whole := exSqrtSum.Range(1, 0, 100)
	v, _, _ := tsys.Run(context.Background(), tsys.New(), exSqrtSum.Task(), whole)
	fmt.Printf("[%d, %d): %.4f\n", whole.Lo, whole.Hi, v)
	// Output: [0, 100): 661.4629
}

// The index form calls its body once per index: simple, and a few
// nanoseconds an iteration dearer than a body over a piece.
func ExampleRegisterLoop() {
	v, _, _ := tsys.Run(context.Background(), tsys.New(), exLoop.Task(), exLoop.Range(3, 0, 100))
	fmt.Println(v)
	// Output: 14850
}

// Grain fixes the split, so a floating-point sum rounds the same way on
// any number of workers, in every run.
func ExampleGrain() {
	var sums []float64
	for _, workers := range []int{1, 2, 3} {
		v, _, _ := tsys.Run(context.Background(), tsys.New(tsys.Workers(workers)), exSqrtSum.Task(),
			exSqrtSum.Range(0.1, 0, 1_000_000, tsys.Grain(4096)))
		sums = append(sums, v)
	}
	fmt.Println(sums[0] == sums[1], sums[1] == sums[2])
	// Output: true true
}

// Factoring cuts the pieces lent to thieves by Cesar et al.'s dynamic
// adjusting factoring, for loops whose iterations cost unevenly.
func ExampleFactoring() {
	v, _, _ := tsys.Run(context.Background(), tsys.New(), exSqrtSum.Task(),
		exSqrtSum.Range(2, 0, 1_000_000, tsys.Factoring()))
	fmt.Printf("%.6g\n", v)
	// Output: 1.33333e+09
}

// Do runs a closure as a job's root, for work written with closures; it
// stays on this node.
func ExampleDo() {
	v, _, err := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) string {
		return strings.Repeat("ab", 3)
	})
	fmt.Println(v, err)
	// Output: ababab <nil>
}

// Join runs two closures, possibly in parallel: rayon's join, with no
// task to register.
func ExampleJoin() {
	var fib func(c *tsys.Ctx, n int) int
	fib = func(c *tsys.Ctx, n int) int {
		if n < 20 {
			return serialFib(n)
		}
		var a, b int
		tsys.Join(c, func(c *tsys.Ctx) { a = fib(c, n-1) }, func(c *tsys.Ctx) { b = fib(c, n-2) })
		return a + b
	}
	v, _, _ := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) int { return fib(c, 30) })
	fmt.Println(v)
	// Output: 832040
}

func serialFib(n int) int {
	if n < 2 {
		return n
	}
	return serialFib(n-1) + serialFib(n-2)
}

// For runs a body over pieces of a range; the body may write memory the
// closure captures, each piece its own part.
func ExampleFor() {
	squares := make([]int, 10)
	tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) int {
		tsys.For(c, 0, len(squares), func(_ *tsys.Ctx, lo, hi int) {
			for i := lo; i < hi; i++ {
				squares[i] = i * i
			}
		})
		return 0
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}

// ForEach hands the body pieces of a slice, to change in place.
func ExampleForEach() {
	words := []string{"loops", "and", "reductions"}
	tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) int {
		tsys.ForEach(c, words, func(_ *tsys.Ctx, at int, part []string) {
			for i := range part {
				part[i] = strings.ToUpper(part[i])
			}
		})
		return 0
	})
	fmt.Println(words)
	// Output: [LOOPS AND REDUCTIONS]
}

// Map makes a new slice, a piece at a time.
func ExampleMap() {
	in := []float64{1, 4, 9, 16}
	out, _, _ := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) []float64 {
		return tsys.Map(c, in, func(_ *tsys.Ctx, out, in []float64) {
			for i, x := range in {
				out[i] = math.Sqrt(x)
			}
		})
	})
	fmt.Println(out)
	// Output: [1 2 3 4]
}

// Reduce combines the pieces' results in index order, so the combine need
// not be commutative; the identity is the result of an empty range.
func ExampleReduce() {
	rt := tsys.New()
	words, _, _ := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) string {
		return tsys.Reduce(c, 0, 12, "", func(_ *tsys.Ctx, lo, hi int) string {
			var b strings.Builder
			for i := lo; i < hi; i++ {
				b.WriteByte('a' + byte(i))
			}
			return b.String()
		}, func(a, b string) string { return a + b })
	})
	fmt.Println(words)
	// Output: abcdefghijkl
}

// Fold builds a result in place, one per piece the runtime makes: here
// counts per remainder, combined in index order.
func ExampleFold() {
	counts, _, _ := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) [3]int {
		return tsys.Fold(c, 0, 1000, func() [3]int { return [3]int{} },
			func(_ *tsys.Ctx, lo, hi int, acc [3]int) [3]int {
				for i := lo; i < hi; i++ {
					acc[i%3]++
				}
				return acc
			},
			func(a, b [3]int) [3]int { return [3]int{a[0] + b[0], a[1] + b[1], a[2] + b[2]} })
	})
	fmt.Println(counts)
	// Output: [334 333 333]
}

// Sum, Min and Max over a slice.
func ExampleSum() {
	xs := []int{4, -2, 9, 7, -5, 3}
	out, _, _ := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) string {
		lo, _ := tsys.Min(c, xs)
		hi, _ := tsys.Max(c, xs)
		_, ok := tsys.Max(c, []int{})
		return fmt.Sprint(tsys.Sum(c, xs), lo, hi, ok)
	})
	fmt.Println(out)
	// Output: 16 -5 9 false
}

// Min returns false for an empty slice.
func ExampleMin() {
	out, _, _ := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) string {
		a, okA := tsys.Min(c, []string{"pear", "apple", "plum"})
		b, okB := tsys.Min(c, []string(nil))
		return fmt.Sprintf("%q %v %q %v", a, okA, b, okB)
	})
	fmt.Println(out)
	// Output: "apple" true "" false
}

// Max of floats: a NaN anywhere makes it NaN, as the built-in max does.
func ExampleMax() {
	out, _, _ := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) string {
		a, _ := tsys.Max(c, []float64{1, 5, 2})
		b, _ := tsys.Max(c, []float64{1, math.NaN(), 2})
		return fmt.Sprint(a, b)
	})
	fmt.Println(out)
	// Output: 5 NaN
}
