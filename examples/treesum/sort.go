package main

import (
	"slices"
	"sync"

	"github.com/tsys-go/tsys/tsys"
)

// The merge sort of examples/mergesort, which returns a sorted copy of
// its slice, written in every form with no cutoff: each recursion halves
// the slice down to single elements. Pair and Both get their cutoff from
// go generate (sortPairClone and sortBothClone in tsys_clone.go), as the
// sums do.

// sortPair sorts xs into new memory, the halves' sorted copies returned
// by Pair.
func sortPair(c *tsys.Ctx, xs []int) []int {
	if len(xs) <= 1 {
		return slices.Clone(xs)
	}
	mid := len(xs) / 2
	a, b := tsys.Pair(c,
		func(c *tsys.Ctx) []int { return sortPair(c, xs[:mid]) },
		func(c *tsys.Ctx) []int { return sortPair(c, xs[mid:]) })
	return merge(a, b)
}

// sortBoth is sortPair with Both, whose closures write the halves' copies.
func sortBoth(c *tsys.Ctx, xs []int) []int {
	if len(xs) <= 1 {
		return slices.Clone(xs)
	}
	mid := len(xs) / 2
	var a, b []int
	tsys.Both(c, func(c *tsys.Ctx) { a = sortBoth(c, xs[:mid]) }, func(c *tsys.Ctx) { b = sortBoth(c, xs[mid:]) })
	return merge(a, b)
}

// SortFork is the sort as examples/mergesort registers it: ByValue, since
// it takes values and returns new memory.
var SortFork *tsys.Task[[]int, []int]

func init() { SortFork = tsys.Register("treesum.sort", sortFork, tsys.ByValue()) }

func sortFork(c *tsys.Ctx, xs []int) []int {
	if len(xs) <= 1 {
		return slices.Clone(xs)
	}
	mid := len(xs) / 2
	a := SortFork.Fork(c, xs[:mid])
	b := sortFork(c, xs[mid:])
	return merge(a.Join(c), b)
}

// sortSerial is the plain recursion; sortGo splits it by hand into
// goroutines down to depth.
func sortSerial(xs []int) []int {
	if len(xs) <= 1 {
		return slices.Clone(xs)
	}
	mid := len(xs) / 2
	return merge(sortSerial(xs[:mid]), sortSerial(xs[mid:]))
}

func sortGo(xs []int, depth int) []int {
	if depth == 0 || len(xs) <= 1 {
		return sortSerial(xs)
	}
	mid := len(xs) / 2
	var a []int
	var wg sync.WaitGroup
	wg.Go(func() { a = sortGo(xs[:mid], depth-1) })
	b := sortGo(xs[mid:], depth-1)
	wg.Wait()
	return merge(a, b)
}

// merge merges two sorted slices into a new one.
func merge(a, b []int) []int {
	out := make([]int, len(a)+len(b))
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j] < a[i] {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
	return out
}
