package main

import (
	"sync"

	"github.com/tsys-go/tsys/tsys"
)

// The sums, written the natural way: each recursion splits its work in two
// with tsys.Pair or tsys.Both down to single leaves, with no cutoff. Left
// so, each call would make its two closures, and the variables they write,
// on the heap, even when enough tasks are ready that both run here. go
// generate writes the cutoff: rangePairClone and the others
// (tsys_clone.go), which the program calls, ask the inlining policy first
// and, on a yes, run the closures' bodies as plain code.

//go:generate go run github.com/tsys-go/tsys/cmd/tsysclone

// leaf is a leaf of a few nanoseconds: a mix of its index.
func leaf(i int) uint64 {
	x := uint64(i) * 0x9e3779b97f4a7c15
	return x ^ x>>29
}

// rangePair sums leaf over [lo, hi), lo < hi, by halving the range, the
// halves' sums returned by Pair.
func rangePair(c *tsys.Ctx, lo, hi int) uint64 {
	if hi-lo == 1 {
		return leaf(lo)
	}
	mid := lo + (hi-lo)/2
	a, b := tsys.Pair(c,
		func(c *tsys.Ctx) uint64 { return rangePair(c, lo, mid) },
		func(c *tsys.Ctx) uint64 { return rangePair(c, mid, hi) })
	return a + b
}

// rangeBoth is rangePair with Both, whose closures write the halves' sums.
func rangeBoth(c *tsys.Ctx, lo, hi int) uint64 {
	if hi-lo == 1 {
		return leaf(lo)
	}
	mid := lo + (hi-lo)/2
	var a, b uint64
	tsys.Both(c, func(c *tsys.Ctx) { a = rangeBoth(c, lo, mid) }, func(c *tsys.Ctx) { b = rangeBoth(c, mid, hi) })
	return a + b
}

// Node is a node of a binary tree of values.
type Node struct {
	V    int64
	L, R *Node
}

// treeBoth sums the values of the tree under n, its subtrees' sums
// written by Both's closures.
func treeBoth(c *tsys.Ctx, n *Node) int64 {
	if n == nil {
		return 0
	}
	var l, r int64
	tsys.Both(c, func(c *tsys.Ctx) { l = treeBoth(c, n.L) }, func(c *tsys.Ctx) { r = treeBoth(c, n.R) })
	return n.V + l + r
}

// treePair is treeBoth with Pair.
func treePair(c *tsys.Ctx, n *Node) int64 {
	if n == nil {
		return 0
	}
	l, r := tsys.Pair(c,
		func(c *tsys.Ctx) int64 { return treePair(c, n.L) },
		func(c *tsys.Ctx) int64 { return treePair(c, n.R) })
	return n.V + l + r
}

// The same sums as registered tasks that Fork, the form the closures are
// measured against (bench/README.md): no cutoff either, and no clone.

// Span is a range of leaves.
type Span struct{ Lo, Hi int }

// RangeFork is rangePair as a registered task.
var RangeFork *tsys.Task[Span, uint64]

func init() { RangeFork = tsys.Register("treesum.range", rangeFork) }

func rangeFork(c *tsys.Ctx, s Span) uint64 {
	if s.Hi-s.Lo == 1 {
		return leaf(s.Lo)
	}
	mid := s.Lo + (s.Hi-s.Lo)/2
	a := RangeFork.Fork(c, Span{s.Lo, mid})
	b := rangeFork(c, Span{mid, s.Hi})
	return a.Join(c) + b
}

// TreeFork is treeBoth as a registered task, which stays on its node: its
// argument is a pointer into this process's memory.
var TreeFork *tsys.Task[*Node, int64]

func init() { TreeFork = tsys.Register("treesum.tree", treeFork) }

func treeFork(c *tsys.Ctx, n *Node) int64 {
	if n == nil {
		return 0
	}
	a := TreeFork.Fork(c, n.L)
	b := treeFork(c, n.R)
	return n.V + a.Join(c) + b
}

// rangeSerial and treeSerial are the plain recursions.
func rangeSerial(lo, hi int) uint64 {
	if hi-lo == 1 {
		return leaf(lo)
	}
	mid := lo + (hi-lo)/2
	return rangeSerial(lo, mid) + rangeSerial(mid, hi)
}

func treeSerial(n *Node) int64 {
	if n == nil {
		return 0
	}
	return n.V + treeSerial(n.L) + treeSerial(n.R)
}

// rangeGo and treeGo split by hand into goroutines down to depth, then
// run serially: the cutoff a Go program writes without tsys.
func rangeGo(lo, hi, depth int) uint64 {
	if depth == 0 || hi-lo == 1 {
		return rangeSerial(lo, hi)
	}
	mid := lo + (hi-lo)/2
	var a uint64
	var wg sync.WaitGroup
	wg.Go(func() { a = rangeGo(lo, mid, depth-1) })
	b := rangeGo(mid, hi, depth-1)
	wg.Wait()
	return a + b
}

func treeGo(n *Node, depth int) int64 {
	if depth == 0 || n == nil {
		return treeSerial(n)
	}
	var l int64
	var wg sync.WaitGroup
	wg.Go(func() { l = treeGo(n.L, depth-1) })
	r := treeGo(n.R, depth-1)
	wg.Wait()
	return n.V + l + r
}

// makeTree makes a complete tree of the given depth whose values number
// its nodes in order from *next+1.
func makeTree(depth int, next *int64) *Node {
	if depth == 0 {
		return nil
	}
	n := &Node{L: makeTree(depth-1, next)}
	*next++
	n.V = *next
	n.R = makeTree(depth-1, next)
	return n
}
