package clonetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// TestClonesGiveTheSerialAnswers runs every cloned task on 1 and 2 workers
// under inlining policies that make every fork a task (so the natural code
// runs), the default (mostly the clone), and a deque of one (both, in
// turns), against the serial answer.
func TestClonesGiveTheSerialAnswers(t *testing.T) {
	policies := []inline.Policy{inline.Never(), inline.Default(), inline.LoadK(1)}
	for _, w := range []int{1, 2} {
		for _, pol := range policies {
			rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
			name := fmt.Sprintf("workers=%d/inline=%v", w, pol)
			check(t, name+" sum3", rt, Sum3, Tree{Depth: 9}, Sum3Serial(Tree{Depth: 9}))
			check(t, name+" bits", rt, Bits, 0x3f5, BitsSerial(0x3f5))
			check(t, name+" futures", rt, Futures, 24, FuturesSerial(24))
			check(t, name+" pair", rt, Pair, 60, PairSerial(60))
			check(t, name+" mixed", rt, Mixed, 18, MixedSerial(18))
			do(t, name, rt, "Halves", func(c *tsys.Ctx) any { return Halves(c, 0, 5000) }, HalvesSerial(0, 5000))
			do(t, name, rt, "Weigh", func(c *tsys.Ctx) any { return Weigh(c, nodes) }, WeighSerial(nodes, 1))
			do(t, name, rt, "Spread", func(c *tsys.Ctx) any { return Spread(c, 3000) }, SpreadSerial(3000))
			do(t, name, rt, "Early", func(c *tsys.Ctx) any { a, b := Early(c, 18); return [2]int64{a, b} }, earlySerial(18))
			do(t, name, rt, "Kids", func(c *tsys.Ctx) any { return Kids(c, 6) }, KidsSerial(6, 1))
			do(t, name, rt, "Nested", func(c *tsys.Ctx) any { return Nested(c, 7, 4000) }, NestedSerial(7, 4000))
			shapes, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) [2]string {
				clones, originals := Shapes(c)
				return [2]string{fmt.Sprint(clones), fmt.Sprint(originals)}
			})
			if err != nil || shapes[0] != shapes[1] {
				t.Errorf("%s: the clones of Shapes give %s, %v; the functions as written %s", name, shapes[0], err, shapes[1])
			}
		}
	}
}

// nodes is the pointer tree the closure forms' test sums.
var nodes = MakeTree(12, new(int64))

func earlySerial(n int) [2]int64 {
	a, b := EarlySerial(n)
	return [2]int64{a, b}
}

// do runs f as a job on rt and checks its value against want.
func do(t *testing.T, name string, rt *tsys.Runtime, what string, f func(c *tsys.Ctx) any, want any) {
	t.Helper()
	got, _, err := tsys.Do(context.Background(), rt, f)
	if err != nil || got != want {
		t.Errorf("%s %s: %v, %v; want %v", name, what, got, err, want)
	}
}

// TestFormsMakeNoClosuresOnAYes: with one worker at the default policy
// nearly every question says yes, so the rewritten forms run their bodies
// as plain code and make no closure, nor a copy of a variable they write:
// a sum over a tree of 4095 nodes allocates far less than once a node,
// where Both as written allocates three times a node. With inlining off
// every form runs as written, with its closures.
func TestFormsMakeNoClosuresOnAYes(t *testing.T) {
	const count = 1<<12 - 1
	allocs := func(pol inline.Policy) float64 {
		rt := tsys.New(tsys.Workers(1), tsys.Inline(pol))
		return testing.AllocsPerRun(5, func() {
			if _, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int64 { return Weigh(c, nodes) }); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a := allocs(inline.Default()); a > count/8 {
		t.Errorf("default policy: %.0f allocations for %d nodes; want most forms to make no closure", a, count)
	}
	if a := allocs(inline.Never()); a < count {
		t.Errorf("inlining off: %.0f allocations for %d nodes; want the forms as written, each making its closures", a, count)
	}
}

// TestCloneRuns: under the default policy on two workers, most calls are
// the clone's, so nearly every fork is inlined, and the hungry worker gets
// some tasks; with inlining off, none is inlined. (On one worker that no
// cluster drives nobody could take a task, and every fork is inlined.)
func TestCloneRuns(t *testing.T) {
	for _, tc := range []struct {
		pol      inline.Policy
		inlined  bool
		describe string
	}{{inline.Default(), true, "most forks inlined"}, {inline.Never(), false, "no fork inlined"}} {
		rt := tsys.New(tsys.Workers(2), tsys.Inline(tc.pol))
		_, st, err := tsys.Run(context.Background(), rt, Sum3, Tree{Depth: 9})
		if err != nil {
			t.Fatal(err)
		}
		tasks := st.Spawns - st.Inlined
		if got := st.Inlined > 10*tasks; got != tc.inlined || tasks == 0 {
			t.Errorf("inline=%v: %d spawns inlined, %d made tasks; want %s, and some tasks", tc.pol, st.Inlined, tasks, tc.describe)
		}
	}
}

func check[A any](t *testing.T, name string, rt *tsys.Runtime, task *tsys.Task[A, int64], arg A, want int64) {
	t.Helper()
	got, _, err := tsys.Run(context.Background(), rt, task, arg)
	if err != nil || got != want {
		t.Errorf("%s(%v): %d, %v; want %d", name, arg, got, err, want)
	}
}
