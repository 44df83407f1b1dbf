package tsys_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// squares lists i*i + env for i in a range, in index order, with costs that
// differ from one iteration to the next.
var squares = tsys.RegisterLoop("test.squares",
	func(c *tsys.Ctx, env int64, i int) []int64 {
		x := int64(0)
		for k := 0; k < i%17*50; k++ { // uneven iterations
			x += int64(k)
		}
		_ = x
		return []int64{int64(i)*int64(i) + env}
	},
	func(a, b []int64) []int64 { return append(a, b...) })

// TestLoopCoversTheRangeInOrder: every iteration runs once, results come
// in index order, on 1 and 2 workers, with every inlining policy and
// grain, and for empty and one-element ranges.
func TestLoopCoversTheRangeInOrder(t *testing.T) {
	for _, workers := range []int{1, 2} {
		for _, inl := range []inline.Policy{inline.Default(), inline.Never(), inline.Everything()} {
			rt := tsys.New(tsys.Workers(workers), tsys.Inline(inl))
			for _, c := range []struct{ lo, hi, grain int }{{0, 1000, 1}, {3, 700, 16}, {5, 5, 1}, {9, 10, 4}, {0, 64, 0}} {
				got, st, err := tsys.Run(context.Background(), rt, squares.Task(), squares.Range(7, c.lo, c.hi, c.grain))
				if err != nil {
					t.Fatal(err)
				}
				var want []int64
				for i := c.lo; i < c.hi; i++ {
					want = append(want, int64(i)*int64(i)+7)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%d workers, %v, %+v: %d results, want %d (first %v)", workers, inl, c, len(got), len(want), got[:min(3, len(got))])
				}
				if inl == inline.Never() && c.hi-c.lo > max(c.grain, 1) && st.TasksRun < 2 {
					t.Errorf("%+v without inlining ran %d tasks", c, st.TasksRun)
				}
			}
		}
	}
}

// loopOuter runs a loop from a task's body. Registered once, so that the
// tests can run again (-count).
var loopOuter = tsys.Register("test.loop-outer", func(c *tsys.Ctx, n int) string {
	return fmt.Sprint(squares.Run(c, 0, 0, n, 2))
})

// TestLoopInsideATask: Run from a task's body nests a loop in a job.
func TestLoopInsideATask(t *testing.T) {
	got, _, err := tsys.Run(context.Background(), tsys.New(tsys.Workers(2)), loopOuter, 5)
	if err != nil || got != "[0 1 4 9 16]" {
		t.Fatalf("%q, %v", got, err)
	}
}
