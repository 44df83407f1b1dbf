package clonetest

import (
	"math/bits"

	"github.com/tsys-go/tsys/tsys"
)

// Tree is a complete ternary-ish tree of the given depth; Span names the
// children of a node by Lo.
type Tree struct{ Depth, Lo int }

// Sum3 joins three forks in an order other than the one they were forked
// in, and uses their results in one expression.
var Sum3 *tsys.Task[Tree, int64]

func init() { Sum3 = tsys.Register("clonetest.sum3", sum3Clone) }

func sum3(c *tsys.Ctx, t Tree) int64 {
	if t.Depth == 0 {
		return int64(t.Lo%7 + 1)
	}
	a := Sum3.Fork(c, Tree{t.Depth - 1, 3 * t.Lo})
	b := Sum3.Fork(c, Tree{t.Depth - 1, 3*t.Lo + 1})
	z := Sum3.Call(c, Tree{t.Depth - 1, 3*t.Lo + 2})
	return 2*b.Join(c) - a.Join(c) + 3*z
}

// Sum3Serial is Sum3 as plain Go.
func Sum3Serial(t Tree) int64 {
	if t.Depth == 0 {
		return int64(t.Lo%7 + 1)
	}
	a := Sum3Serial(Tree{t.Depth - 1, 3 * t.Lo})
	b := Sum3Serial(Tree{t.Depth - 1, 3*t.Lo + 1})
	z := Sum3Serial(Tree{t.Depth - 1, 3*t.Lo + 2})
	return 2*b - a + 3*z
}

// Bits forks one task per set bit of its argument into a slice, returns
// early when a subtree has an answer, and ranges over the futures to join.
var Bits *tsys.Task[uint32, int64]

func init() { Bits = tsys.Register("clonetest.bits", bitsCountClone) }

func bitsCount(c *tsys.Ctx, m uint32) int64 {
	if m == 0 {
		return 1
	}
	if bits.OnesCount32(m) == 1 {
		return 2 // an early return after a call: not a guard
	}
	var forks []tsys.Forked[int64]
	for rest := m; rest != 0; rest &= rest - 1 {
		forks = append(forks, Bits.Fork(c, m&^(rest&-rest)))
	}
	var total int64
	for i := range forks {
		f := forks[len(forks)-1-i]
		total += f.Join(c) * int64(i+1)
	}
	return total
}

// BitsSerial is Bits as plain Go.
func BitsSerial(m uint32) int64 {
	if m == 0 {
		return 1
	}
	if bits.OnesCount32(m) == 1 {
		return 2
	}
	var subs []int64
	for rest := m; rest != 0; rest &= rest - 1 {
		subs = append(subs, BitsSerial(m&^(rest&-rest)))
	}
	var total int64
	for i := range subs {
		total += subs[len(subs)-1-i] * int64(i+1)
	}
	return total
}

// Futures spawns into an array and gets the futures newest first, and
// forks a third child that it joins at once if it is ready.
var Futures *tsys.Task[int, int64]

func init() { Futures = tsys.Register("clonetest.futures", futuresClone) }

func futures(c *tsys.Ctx, n int) int64 {
	if n < 3 {
		return int64(n)
	}
	var fs [2]tsys.Future[int64]
	fs[0] = Futures.Spawn(c, n-1)
	fs[1] = Futures.Spawn(c, n-2)
	third := Futures.Fork(c, n/3)
	total := int64(n)
	if third.Ready() {
		total += third.Join(c)
	} else {
		total += third.Join(c) + 0
	}
	for k := len(fs) - 1; k >= 0; k-- {
		total ^= fs[k].Get(c)
	}
	return total
}

// FuturesSerial is Futures as plain Go.
func FuturesSerial(n int) int64 {
	if n < 3 {
		return int64(n)
	}
	total := int64(n) + FuturesSerial(n/3)
	total ^= FuturesSerial(n - 2)
	return total ^ FuturesSerial(n-1)
}

// Pair forks a task of another cloned function and joins it at once.
var Pair *tsys.Task[int, int64]

func init() { Pair = tsys.Register("clonetest.pair", pairClone) }

func pair(c *tsys.Ctx, n int) int64 {
	if n <= 0 {
		return 1
	}
	return Pair.Fork(c, n-1).Join(c) + Futures.Fork(c, n%20).Join(c)
}

// PairSerial is Pair as plain Go.
func PairSerial(n int) int64 {
	if n <= 0 {
		return 1
	}
	return PairSerial(n-1) + FuturesSerial(n%20)
}
