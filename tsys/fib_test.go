package tsys_test

import (
	"context"
	"testing"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

func TestFibAllPolicies(t *testing.T) {
	want := fib.Serial(24)
	for _, w := range []int{1, 2, 4} {
		for _, pol := range []string{"off", "always", "load:1", "load:4"} {
			p, _ := inline.Parse(pol)
			rt := tsys.New(tsys.Workers(w), tsys.Inline(p))
			got, st, err := tsys.Run(context.Background(), rt, fib.Task, 24)
			if err != nil || got != want {
				t.Fatalf("workers=%d inline=%s: got %d, %v; want %d", w, pol, got, err, want)
			}
			if st.Spawns == 0 || st.TasksRun == 0 && pol != "always" {
				t.Errorf("workers=%d inline=%s: counters not kept: %+v", w, pol, st)
			}
		}
	}
}
