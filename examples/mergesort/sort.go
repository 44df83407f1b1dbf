package main

import (
	"slices"

	"github.com/tsys-go/tsys/tsys"
)

// Sort returns a sorted copy of its argument, splitting it in halves
// sorted as tasks down to a leaf of Leaf elements.
//
// It takes its slice by value and returns new memory, so it is
// registered ByValue and its tasks may run on other nodes: a node sorts
// a copy of its half and sends the sorted copy back. A version that
// sorted the caller's slice in place would be wrong there, where the
// caller never sees the copy change; without ByValue tsys keeps such a
// task on its node, and TSYS_CHECK_COPIES=1 go test shows the bug on one.
var Sort *tsys.Task[Piece, []int]

// Piece is a part of the input and the size below which it is sorted
// serially.
type Piece struct {
	Xs   []int
	Leaf int
}

func init() { Sort = tsys.Register("mergesort.sort", sort, tsys.ByValue()) }

func sort(c *tsys.Ctx, p Piece) []int {
	if len(p.Xs) <= max(p.Leaf, 1) {
		out := slices.Clone(p.Xs)
		slices.Sort(out)
		return out
	}
	mid := len(p.Xs) / 2
	left := Sort.Fork(c, Piece{Xs: p.Xs[:mid], Leaf: p.Leaf})
	right := sort(c, Piece{Xs: p.Xs[mid:], Leaf: p.Leaf})
	return merge(left.Join(c), right)
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
