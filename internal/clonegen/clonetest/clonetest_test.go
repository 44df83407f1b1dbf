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
		}
	}
}

// TestCloneRuns: under the default policy on one worker, most calls are
// the clone's, so nearly every fork is inlined; with inlining off, none is.
func TestCloneRuns(t *testing.T) {
	for _, tc := range []struct {
		pol      inline.Policy
		inlined  bool
		describe string
	}{{inline.Default(), true, "most forks inlined"}, {inline.Never(), false, "no fork inlined"}} {
		rt := tsys.New(tsys.Workers(1), tsys.Inline(tc.pol))
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
