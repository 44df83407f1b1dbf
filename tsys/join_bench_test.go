package tsys_test

import (
	"context"
	"math/bits"
	"sync"
	"testing"

	"github.com/tsys-go/tsys/tsys"
)

// Join at fine grain: a binary tree of 10 M tiny leaves (a few ns each)
// and the sum over a balanced pointer tree of 2^20-1 nodes, each written
// with Join (alone, and behind Ctx.AllowCCall asked by hand), with a
// registered task's Fork, serially, and with goroutines split by hand, on
// 2 workers (bench/README.md, "Join at fine grain").

const tinyLeaves = 10_000_000

// tinyLeaf is a leaf of a few nanoseconds: a mix of its index.
func tinyLeaf(i int) uint64 {
	x := uint64(i) * 0x9e3779b97f4a7c15
	return x ^ x>>29
}

func tinySerial(lo, hi int) uint64 {
	if hi-lo == 1 {
		return tinyLeaf(lo)
	}
	mid := lo + (hi-lo)/2
	return tinySerial(lo, mid) + tinySerial(mid, hi)
}

type tinyRange struct{ Lo, Hi int }

var tinyFork *tsys.Task[tinyRange, uint64]

func init() { tinyFork = tsys.Register("bench.tiny.fork", tinyForked) }

func tinyForked(c *tsys.Ctx, r tinyRange) uint64 {
	if r.Hi-r.Lo == 1 {
		return tinyLeaf(r.Lo)
	}
	mid := r.Lo + (r.Hi-r.Lo)/2
	a := tinyFork.Fork(c, tinyRange{r.Lo, mid})
	b := tinyForked(c, tinyRange{mid, r.Hi})
	return a.Join(c) + b
}

func tinyJoined(c *tsys.Ctx, lo, hi int) uint64 {
	if hi-lo == 1 {
		return tinyLeaf(lo)
	}
	mid := lo + (hi-lo)/2
	var a, b uint64
	tsys.Both(c, func(c *tsys.Ctx) { a = tinyJoined(c, lo, mid) }, func(c *tsys.Ctx) { b = tinyJoined(c, mid, hi) })
	return a + b
}

// tinyGuarded is tinyJoined behind the load question asked by hand: on
// a yes the halves are plain calls, and the closures, with the variables
// they write, are made only on a no.
func tinyGuarded(c *tsys.Ctx, lo, hi int) uint64 {
	if hi-lo == 1 {
		return tinyLeaf(lo)
	}
	mid := lo + (hi-lo)/2
	if c.AllowCCall() {
		return tinyGuarded(c, lo, mid) + tinyGuarded(c, mid, hi)
	}
	var a, b uint64
	tsys.Both(c, func(c *tsys.Ctx) { a = tinyGuarded(c, lo, mid) }, func(c *tsys.Ctx) { b = tinyGuarded(c, mid, hi) })
	return a + b
}

// tinyGo splits by hand into goroutines down to depth, then runs serially.
func tinyGo(lo, hi, depth int) uint64 {
	if depth == 0 || hi-lo == 1 {
		return tinySerial(lo, hi)
	}
	mid := lo + (hi-lo)/2
	var a uint64
	var wg sync.WaitGroup
	wg.Go(func() { a = tinyGo(lo, mid, depth-1) })
	b := tinyGo(mid, hi, depth-1)
	wg.Wait()
	return a + b
}

// handSplitDepth is the depth to which the hand-split versions make
// goroutines: a few levels past one per worker, for balance.
func handSplitDepth(workers int) int { return bits.Len(uint(workers)) + 3 }

func BenchmarkJoinTinyTree(b *testing.B) {
	want := tinySerial(0, tinyLeaves)
	check := func(b *testing.B, got uint64) {
		if got != want {
			b.Fatalf("sum = %d, want %d", got, want)
		}
	}
	rt := tsys.New(tsys.Workers(2))
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			check(b, tinySerial(0, tinyLeaves))
		}
	})
	b.Run("goroutines", func(b *testing.B) {
		for b.Loop() {
			check(b, tinyGo(0, tinyLeaves, handSplitDepth(2)))
		}
	})
	b.Run("fork", func(b *testing.B) {
		for b.Loop() {
			v, _, err := tsys.Run(context.Background(), rt, tinyFork, tinyRange{0, tinyLeaves})
			if err != nil {
				b.Fatal(err)
			}
			check(b, v)
		}
	})
	b.Run("join", func(b *testing.B) {
		for b.Loop() {
			v, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) uint64 { return tinyJoined(c, 0, tinyLeaves) })
			if err != nil {
				b.Fatal(err)
			}
			check(b, v)
		}
	})
	b.Run("join-guarded", func(b *testing.B) {
		for b.Loop() {
			v, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) uint64 { return tinyGuarded(c, 0, tinyLeaves) })
			if err != nil {
				b.Fatal(err)
			}
			check(b, v)
		}
	})
}

func sumSerial(n *benchTree) int64 {
	if n == nil {
		return 0
	}
	return n.V + sumSerial(n.L) + sumSerial(n.R)
}

// sumFork's argument is a pointer into memory the task only reads: it
// stays on its node, which is all this benchmark runs on.
var sumFork *tsys.Task[*benchTree, int64]

func init() { sumFork = tsys.Register("bench.tree.fork", sumForked) }

func sumForked(c *tsys.Ctx, n *benchTree) int64 {
	if n == nil {
		return 0
	}
	a := sumFork.Fork(c, n.L)
	b := sumForked(c, n.R)
	return n.V + a.Join(c) + b
}

func sumJoined(c *tsys.Ctx, n *benchTree) int64 {
	if n == nil {
		return 0
	}
	var a, b int64
	tsys.Both(c, func(c *tsys.Ctx) { a = sumJoined(c, n.L) }, func(c *tsys.Ctx) { b = sumJoined(c, n.R) })
	return n.V + a + b
}

// sumGuarded is sumJoined behind the load question asked by hand.
func sumGuarded(c *tsys.Ctx, n *benchTree) int64 {
	if n == nil {
		return 0
	}
	if c.AllowCCall() {
		return n.V + sumGuarded(c, n.L) + sumGuarded(c, n.R)
	}
	var a, b int64
	tsys.Both(c, func(c *tsys.Ctx) { a = sumGuarded(c, n.L) }, func(c *tsys.Ctx) { b = sumGuarded(c, n.R) })
	return n.V + a + b
}

func sumGo(n *benchTree, depth int) int64 {
	if depth == 0 || n == nil {
		return sumSerial(n)
	}
	var a int64
	var wg sync.WaitGroup
	wg.Go(func() { a = sumGo(n.L, depth-1) })
	b := sumGo(n.R, depth-1)
	wg.Wait()
	return n.V + a + b
}

func BenchmarkJoinPointerTree(b *testing.B) {
	var count int64
	root := makeBenchTree(20, &count) // 2^20-1 nodes
	want := count * (count + 1) / 2
	check := func(b *testing.B, got int64) {
		if got != want {
			b.Fatalf("sum = %d, want %d", got, want)
		}
	}
	rt := tsys.New(tsys.Workers(2))
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			check(b, sumSerial(root))
		}
	})
	b.Run("goroutines", func(b *testing.B) {
		for b.Loop() {
			check(b, sumGo(root, handSplitDepth(2)))
		}
	})
	b.Run("fork", func(b *testing.B) {
		for b.Loop() {
			v, _, err := tsys.Run(context.Background(), rt, sumFork, root)
			if err != nil {
				b.Fatal(err)
			}
			check(b, v)
		}
	})
	b.Run("join", func(b *testing.B) {
		for b.Loop() {
			v, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int64 { return sumJoined(c, root) })
			if err != nil {
				b.Fatal(err)
			}
			check(b, v)
		}
	})
	b.Run("join-guarded", func(b *testing.B) {
		for b.Loop() {
			v, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int64 { return sumGuarded(c, root) })
			if err != nil {
				b.Fatal(err)
			}
			check(b, v)
		}
	})
}
