package clonetest

import (
	"github.com/tsys-go/tsys/tsys"
)

// Closure forms in the shapes the generator rewrites: functions that are
// no task, written with Pair, Both, For and Fold and no cutoff, called by
// their clones' names. Each has a serial twin to check it against.

// mix is a leaf of a few nanoseconds.
func mix(i int) uint64 {
	x := uint64(i) * 0x9e3779b97f4a7c15
	return x ^ x>>29
}

// HalvesSerial sums mix over [lo, hi) by halving the range.
func HalvesSerial(lo, hi int) uint64 {
	if hi-lo <= 1 {
		if hi-lo == 1 {
			return mix(lo)
		}
		return 0
	}
	mid := lo + (hi-lo)/2
	return HalvesSerial(lo, mid) + HalvesSerial(mid, hi)
}

// Halves is HalvesSerial with Pair: each closure a single return, the
// results declared by the Pair.
func Halves(c *tsys.Ctx, lo, hi int) uint64 { return halvesClone(c, lo, hi) }

func halves(c *tsys.Ctx, lo, hi int) uint64 {
	if hi-lo <= 1 {
		if hi-lo == 1 {
			return mix(lo)
		}
		return 0
	}
	mid := lo + (hi-lo)/2
	a, b := tsys.Pair(c,
		func(c *tsys.Ctx) uint64 { return halves(c, lo, mid) },
		func(c *tsys.Ctx) uint64 { return halves(c, mid, hi) })
	return a + b
}

// Node is a node of a binary tree.
type Node struct {
	V    int64
	L, R *Node
}

// MakeTree makes a complete tree of the given depth, numbering its nodes
// in order from *next.
func MakeTree(depth int, next *int64) *Node {
	if depth == 0 {
		return nil
	}
	n := &Node{L: MakeTree(depth-1, next)}
	*next++
	n.V = *next
	n.R = MakeTree(depth-1, next)
	return n
}

// WeighSerial weighs the tree: each node's value times its depth.
func WeighSerial(n *Node, depth int64) int64 {
	if n == nil {
		return 0
	}
	return n.V*depth + WeighSerial(n.L, depth+1) + WeighSerial(n.R, depth+1)
}

// Weigh is WeighSerial with Both, whose closures write variables of the
// function: on the no path they write copies.
func Weigh(c *tsys.Ctx, n *Node) int64 { return weighClone(c, n, 1) }

func weigh(c *tsys.Ctx, n *Node, depth int64) int64 {
	if n == nil {
		return 0
	}
	var a, b int64
	tsys.Both(c, func(c *tsys.Ctx) { a = weigh(c, n.L, depth+1) }, func(c *tsys.Ctx) {
		b = weigh(c, n.R, depth+1)
	})
	return n.V*depth + a + b
}

// SpreadSerial is a shape of many statements: a walk that reassigns its
// variables, with results written to existing names.
func SpreadSerial(n int) int64 {
	if n < 4 {
		return int64(n)
	}
	var x, y int64
	k := n / 3
	k++ // k is assigned after its declaration: a closure captures it by reference
	x, y = SpreadSerial(k)+1, SpreadSerial(n-k)*2
	if x > y {
		return x - y
	}
	return y - x + int64(k)
}

// Spread is SpreadSerial with Pair: closures of several statements, one
// naming its Ctx otherwise, results assigned to existing names.
func Spread(c *tsys.Ctx, n int) int64 { return spreadClone(c, n) }

func spread(c *tsys.Ctx, n int) int64 {
	if n < 4 {
		return int64(n)
	}
	var x, y int64
	k := n / 3
	k++
	x, y = tsys.Pair(c, func(cc *tsys.Ctx) int64 {
		v := spread(cc, k)
		v++
		return v
	}, func(c *tsys.Ctx) int64 {
		v := spread(c, n-k) // the same name in both closures
		return v * 2
	})
	if x > y {
		return x - y
	}
	return y - x + int64(k)
}

// EarlySerial returns a pair from the pairs of n-1 and n-2, each
// adjusted in its own way.
func EarlySerial(n int) (int64, int64) {
	if n < 3 {
		return int64(n), 1
	}
	a, b := EarlySerial(n - 1)
	x := a + b
	if x%7 == 0 {
		x = 7
	}
	p, q := EarlySerial(n - 2)
	y := p*2 + q
	if y > 1000 {
		y %= 1000
	}
	return x, y
}

// Early is EarlySerial with the Pair returned whole, its closures
// returning before their last statement: the plain path calls them.
func Early(c *tsys.Ctx, n int) (int64, int64) { return earlyClone(c, n) }

func early(c *tsys.Ctx, n int) (int64, int64) {
	if n < 3 {
		return int64(n), 1
	}
	return tsys.Pair(c, func(c *tsys.Ctx) int64 {
		a, b := early(c, n-1)
		if (a+b)%7 == 0 {
			return 7
		}
		return a + b
	}, func(c *tsys.Ctx) int64 {
		p, q := early(c, n-2)
		if y := p*2 + q; y > 1000 {
			return y % 1000
		}
		return p*2 + q
	})
}

// KidsSerial sums a tree whose node i has i%5 children, with a loop over
// them at every node.
func KidsSerial(depth, i int) int64 {
	if depth == 0 {
		return int64(i)
	}
	total := int64(i)
	for k := range i%5 + 1 {
		total += KidsSerial(depth-1, 5*i+k)
	}
	return total
}

// Kids is KidsSerial with, at every node, Fold over the first half of
// its children and For over the rest, writing into a slice; both bodies
// call the clone, so both ask again.
func Kids(c *tsys.Ctx, depth int) int64 { return kidsClone(c, depth, 1) }

func kids(c *tsys.Ctx, depth, i int) int64 {
	if depth == 0 {
		return int64(i)
	}
	n := i%5 + 1
	half := n / 2
	sum := tsys.Fold(c, 0, half, zero, func(c *tsys.Ctx, lo, hi int, acc int64) int64 {
		for k := lo; k < hi; k++ {
			acc += kids(c, depth-1, 5*i+k)
		}
		return acc
	}, func(a, b int64) int64 { return a + b })
	parts := make([]int64, n)
	tsys.For(c, half, width(n), func(c *tsys.Ctx, lo, hi int) {
		for k := lo; k < hi; k++ {
			parts[k] = kids(c, depth-1, 5*i+k)
		}
	})
	for _, p := range parts {
		sum += p
	}
	return int64(i) + sum
}

// width is a call in a loop's bounds, which the rewrite evaluates once.
func width(n int) int { return n }

func zero() int64 { return 0 }

// NestedSerial is a sum over [lo, hi) in thirds.
func NestedSerial(lo, hi int) uint64 {
	if hi-lo < 3 {
		return HalvesSerial(lo, hi)
	}
	third := (hi - lo) / 3
	return NestedSerial(lo, lo+third) + NestedSerial(lo+third, lo+2*third) + NestedSerial(lo+2*third, hi)
}

// Nested is NestedSerial with a Both inside a Pair's closure, rewritten
// inside out, and a Pair whose one result is discarded.
func Nested(c *tsys.Ctx, lo, hi int) uint64 { return nestedClone(c, lo, hi) }

func nested(c *tsys.Ctx, lo, hi int) uint64 {
	if hi-lo < 3 {
		return Halves(c, lo, hi)
	}
	third := (hi - lo) / 3
	first, rest := tsys.Pair(c, func(c *tsys.Ctx) uint64 { return nested(c, lo, lo+third) }, func(c *tsys.Ctx) uint64 {
		var m, r uint64
		tsys.Both(c, func(c *tsys.Ctx) { m = nested(c, lo+third, lo+2*third) }, func(c *tsys.Ctx) { r = nested(c, lo+2*third, hi) })
		return m + r
	})
	_, check := tsys.Pair(c, func(c *tsys.Ctx) int { return 0 }, func(c *tsys.Ctx) uint64 { return first })
	return check + rest
}

// MixedSerial is fib with n added at each step.
func MixedSerial(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	return MixedSerial(n-1) + MixedSerial(n-2) + int64(n)
}

// Mixed is a task that forks and runs a Pair: its fast clone makes the
// fork a call and gives the Pair its cutoff.
var Mixed *tsys.Task[int, int64]

func init() { Mixed = tsys.Register("clonetest.mixed", mixedClone) }

func mixed(c *tsys.Ctx, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	f := Mixed.Fork(c, n-1)
	a, b := tsys.Pair(c, func(c *tsys.Ctx) int64 { return mixed(c, n-2) }, func(c *tsys.Ctx) int64 { return int64(n) })
	return f.Join(c) + a + b
}
