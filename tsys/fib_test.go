package tsys_test

import (
	"context"
	"testing"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

var fibTask *tsys.Task[int, int]

func init() { fibTask = tsys.Register("test.fib", fibT) }

func fibT(c *tsys.Ctx, n int) int {
	if n < 2 {
		return n
	}
	a := fibTask.Spawn(c, n-1)
	b := fibTask.Call(c, n-2)
	return a.Get(c) + b
}

func fibSerial(n int) int {
	if n < 2 {
		return n
	}
	return fibSerial(n-1) + fibSerial(n-2)
}

func TestFibAllPolicies(t *testing.T) {
	want := fibSerial(24)
	for _, w := range []int{1, 2, 4} {
		for _, pol := range []string{"off", "always", "load:1", "load:4"} {
			p, _ := inline.Parse(pol)
			rt := tsys.New(tsys.Workers(w), tsys.Inline(p))
			got, st, err := tsys.Run(context.Background(), rt, fibTask, 24)
			if err != nil || got != want {
				t.Fatalf("workers=%d inline=%s: got %d, %v; want %d", w, pol, got, err, want)
			}
			if st.Spawns == 0 || st.TasksRun == 0 && pol != "always" {
				t.Errorf("workers=%d inline=%s: counters not kept: %+v", w, pol, st)
			}
		}
	}
}
