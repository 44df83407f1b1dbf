package apps_test

import (
	"context"
	"testing"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/apps/nqueens"
	"github.com/tsys-go/tsys/apps/uts"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// TestNaturalFormsGiveTheAnswers: the natural forms of fib, nqueens and
// UTS (Fork and Join, or Spawn and Get, no fast clone), which the
// benchmarks compare with the fast clones, give the published answers on
// 1 and 2 workers, with every spawn a task and at the default inlining.
func TestNaturalFormsGiveTheAnswers(t *testing.T) {
	t5, err := uts.Named("T5")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{1, 2} {
		for _, pol := range []inline.Policy{inline.Never(), inline.Default()} {
			rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
			for name, task := range map[string]*tsys.Task[int, int64]{"fib.Forking": fib.Forking, "fib.Plain": fib.Plain} {
				if v, _, err := tsys.Run(context.Background(), rt, task, 20); err != nil || v != fib.Exact(20) {
					t.Errorf("workers=%d inline=%v %s: %d, %v", w, pol, name, v, err)
				}
			}
			for name, task := range map[string]*tsys.Task[nqueens.Board, int64]{"nqueens.Forking": nqueens.Forking, "nqueens.Spawning": nqueens.Spawning} {
				if v, _, err := tsys.Run(context.Background(), rt, task, nqueens.Start(9)); err != nil || v != nqueens.Known[9] {
					t.Errorf("workers=%d inline=%v %s: %d, %v", w, pol, name, v, err)
				}
			}
			c, _, err := tsys.Run(context.Background(), rt, uts.Forking, uts.RootWork(t5.Params))
			if err != nil || c.Nodes != t5.Nodes || c.Leaves != t5.Leaves || c.MaxDepth != t5.MaxDepth {
				t.Errorf("workers=%d inline=%v uts.forking: %+v, %v; want %d nodes, %d leaves, depth %d", w, pol, c, err, t5.Nodes, t5.Leaves, t5.MaxDepth)
			}
		}
	}
}
