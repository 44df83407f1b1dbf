package tsys_test

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/tsys-go/tsys/tsys"
)

// A registered loop: its body folds a whole piece [lo, hi) into the
// piece's result as a plain Go loop, and its pieces may run on other
// nodes (its environment and result are plain values). Loops are
// registered at init, as tasks are.
var exSqrtSum = tsys.RegisterFold("example.sqrtsum",
	func() float64 { return 0 },
	func(c *tsys.Ctx, scale float64, lo, hi int, s float64) float64 {
		for i := lo; i < hi; i++ {
			s += scale * math.Sqrt(float64(i))
		}
		return s
	},
	func(a, b float64) float64 { return a + b })

// A job whose root is a loop registers a root task that calls it.
var exMean = tsys.Register("example.mean", func(c *tsys.Ctx, n int) float64 {
	return exSqrtSum.Call(c, 1, 0, n) / float64(n)
})

// Register a loop whose pieces may cross nodes, and run it from a task:
// no grain to choose.
func ExampleRegisterFold() {
	v, _, err := tsys.Run(context.Background(), tsys.New(), exMean, 1_000_000)
	fmt.Printf("%.6g %v\n", v, err)
	// Output: 666.666 <nil>
}

// Call runs a loop from inside a task, here a closure root's.
func ExampleLoop_Call() {
	v, _, _ := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) float64 {
		return exSqrtSum.Call(c, 1, 0, 100)
	})
	fmt.Printf("%.4f\n", v)
	// Output: 661.4629
}

// Grain fixes the split, so a floating-point sum rounds the same way on
// any number of workers, in every run.
func ExampleGrain() {
	var sums []float64
	for _, workers := range []int{1, 2, 3} {
		v, _, _ := tsys.Do(context.Background(), tsys.New(tsys.Workers(workers)), func(c *tsys.Ctx) float64 {
			return exSqrtSum.Call(c, 0.1, 0, 1_000_000, tsys.Grain(4096))
		})
		sums = append(sums, v)
	}
	fmt.Println(sums[0] == sums[1], sums[1] == sums[2])
	// Output: true true
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

// Pair runs two closures, possibly in parallel, and returns both results:
// rayon's join, with no task to register.
func ExamplePair() {
	var fib func(c *tsys.Ctx, n int) int
	fib = func(c *tsys.Ctx, n int) int {
		if n < 20 {
			return serialFib(n)
		}
		a, b := tsys.Pair(c,
			func(c *tsys.Ctx) int { return fib(c, n-1) },
			func(c *tsys.Ctx) int { return fib(c, n-2) })
		return a + b
	}
	v, _, _ := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) int { return fib(c, 30) })
	fmt.Println(v)
	// Output: 832040
}

// Both runs two closures for their effects: here, sorting two halves in
// place before merging them.
func ExampleBoth() {
	xs := []int{9, 3, 7, 1, 8, 2, 6, 4}
	tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) int {
		left, right := xs[:4], xs[4:]
		tsys.Both(c, func(*tsys.Ctx) { insertionSort(left) }, func(*tsys.Ctx) { insertionSort(right) })
		return 0
	})
	fmt.Println(xs)
	// Output: [1 3 7 9 2 4 6 8]
}

func insertionSort(xs []int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

func serialFib(n int) int {
	if n < 2 {
		return n
	}
	return serialFib(n-1) + serialFib(n-2)
}

// For runs a body over pieces of a range; the body may write memory the
// closure captures, each piece its own part. A loop over a slice is a
// loop over its indices.
func ExampleFor() {
	words := []string{"loops", "and", "reductions"}
	lengths := make([]int, len(words))
	tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) int {
		tsys.For(c, 0, len(words), func(_ *tsys.Ctx, lo, hi int) {
			for i := lo; i < hi; i++ {
				words[i] = strings.ToUpper(words[i])
				lengths[i] = len(words[i])
			}
		})
		return 0
	})
	fmt.Println(words, lengths)
	// Output: [LOOPS AND REDUCTIONS] [5 3 10]
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

// Fold combines the pieces' results in index order, so the combine need
// not be commutative; the identity is the result of an empty range.
func ExampleFold_inOrder() {
	words, _, _ := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) string {
		return tsys.Fold(c, 0, 12, func() string { return "" }, func(_ *tsys.Ctx, lo, hi int, s string) string {
			for i := lo; i < hi; i++ {
				s += string(rune('a' + i))
			}
			return s
		}, func(a, b string) string { return a + b })
	})
	fmt.Println(words)
	// Output: abcdefghijkl
}

// The least and the greatest of a slice, with Fold and the built-ins.
func ExampleFold_minMax() {
	xs := []float64{4, -2, 9, 7, -5, 3}
	type span struct{ lo, hi float64 }
	out, _, _ := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) span {
		return tsys.Fold(c, 0, len(xs), func() span { return span{math.Inf(1), math.Inf(-1)} },
			func(_ *tsys.Ctx, lo, hi int, s span) span {
				for _, x := range xs[lo:hi] {
					s = span{min(s.lo, x), max(s.hi, x)}
				}
				return s
			},
			func(a, b span) span { return span{min(a.lo, b.lo), max(a.hi, b.hi)} })
	})
	fmt.Println(out.lo, out.hi)
	// Output: -5 9
}
