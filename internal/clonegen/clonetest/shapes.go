package clonetest

// Odd shapes of closure forms, each checked against itself as written
// (Shapes): a form in a loop, results redeclared, declared by var or
// added to, a Fold nested in a Both, a Pair in a For, a type switch, a
// closure's name that hides the function's result, a generic function,
// labels and early returns, variables the loop reassigns, an address
// taken.

import (
	"errors"

	"github.com/tsys-go/tsys/tsys"
)

func loopBoth(c *tsys.Ctx, n int) int {
	out, odd := make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		tsys.Both(c, func(c *tsys.Ctx) { out[i] = i * 2 }, func(_ *tsys.Ctx) { odd[i] = 1 })
	}
	s := 0
	for i, v := range out {
		s += v + odd[i]
	}
	return s
}

func redeclared(c *tsys.Ctx, n int) (int, error) {
	a, err := n, error(nil)
	a, b := tsys.Pair(c, func(c *tsys.Ctx) int { return a + 1 }, func(*tsys.Ctx) int { return n * 3 })
	var x, y = tsys.Pair(c, func(c *tsys.Ctx) int { return b }, func(c *tsys.Ctx) string { return "s" })
	if y != "s" {
		err = errors.New("bad")
	}
	return a + b + x, err
}

func folds(c *tsys.Ctx, n int) int {
	total := 5
	total += tsys.Fold(c, 0, n, func() int { return 0 }, func(c *tsys.Ctx, lo, hi, acc int) int {
		for i := lo; i < hi; i++ {
			acc += leafy(c, i)
		}
		return acc
	}, func(a, b int) int { return a + b })
	var more int
	tsys.Both(c, func(c *tsys.Ctx) {
		tsys.Fold(c, 0, n, func() int { return 0 }, func(c *tsys.Ctx, lo, hi, acc int) int { return acc + leafyClone(c, lo) }, func(a, b int) int { return a + b })
	}, func(c *tsys.Ctx) { more = leafyClone(c, 3) })
	return total + more
}

func leafy(c *tsys.Ctx, i int) int {
	if i < 2 {
		return i
	}
	const k = 3
	type pair struct{ a, b int }
	var p pair
	tsys.Both(c, func(c *tsys.Ctx) { p.a = leafy(c, i-1) * k }, func(c *tsys.Ctx) { p.b = leafy(c, i-2) })
	return (p.a + p.b) % 1000
}

func nestedFor(c *tsys.Ctx, n int) int {
	res := make([]int, n)
	tsys.For(c, 0, n, func(c *tsys.Ctx, lo, hi int) {
		for i := lo; i < hi; i++ {
			a, b := tsys.Pair(c, func(c *tsys.Ctx) int { return leafy(c, i%12) }, func(c *tsys.Ctx) int { return i })
			res[i] = a + b
		}
	})
	s := 0
	for _, r := range res {
		s += r
	}
	return s
}

func switchy(c *tsys.Ctx, v any) (out int) {
	var a, b int
	tsys.Both(c, func(c *tsys.Ctx) {
		switch x := v.(type) {
		case int:
			a = x
		case string:
			a = len(x)
		}
	}, func(c *tsys.Ctx) {
		out := 7 // shadows the result
		b = out
	})
	out = a + b
	return
}

func gen[T int | int64](c *tsys.Ctx, n T) T {
	if n < 2 {
		return n
	}
	a, b := tsys.Pair[T, T](c, func(c *tsys.Ctx) T { return gen(c, n-1) }, func(c *tsys.Ctx) T { return gen(c, n-2) })
	return a + b
}

func labelled(c *tsys.Ctx, n int) int {
	var a, b int
	tsys.Both(c, func(c *tsys.Ctx) {
	outer:
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i*j > 10 {
					break outer
				}
				a++
			}
		}
	}, func(c *tsys.Ctx) {
		if n > 3 {
			b = 1
			return
		}
		b = 2
	})
	return a*10 + b
}

func reassignLoop(c *tsys.Ctx, n int) int {
	total := 0
	for n > 0 {
		step := n % 3
		var x int
		tsys.Both(c, func(c *tsys.Ctx) { x = leafy(c, n) }, func(c *tsys.Ctx) { total += step })
		total += x
		n--
	}
	return total
}

var sink any

func addrTaken(c *tsys.Ctx, n int) int {
	var a, b int
	sink = &a
	tsys.Both(c, func(c *tsys.Ctx) { a = leafy(c, n) }, func(c *tsys.Ctx) { b = leafy(c, n+1) })
	return a + b
}

// Shapes runs each clone and the function it was generated from.
func Shapes(c *tsys.Ctx) (clones, originals []any) {
	r1, e1 := redeclaredClone(c, 4)
	r2, e2 := redeclared(c, 4)
	clones = []any{loopBothClone(c, 50), r1, e1, foldsClone(c, 20), nestedForClone(c, 30), switchyClone(c, "abc"), switchyClone(c, 5), genClone(c, int64(20)), labelledClone(c, 6), reassignLoopClone(c, 15), addrTakenClone(c, 12)}
	originals = []any{loopBoth(c, 50), r2, e2, folds(c, 20), nestedFor(c, 30), switchy(c, "abc"), switchy(c, 5), gen(c, int64(20)), labelled(c, 6), reassignLoop(c, 15), addrTaken(c, 12)}
	return clones, originals
}
