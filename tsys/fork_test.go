package tsys_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

var twiceJoined *tsys.Task[int, int]

func init() {
	twiceJoined = tsys.Register("test.twiceJoined", func(c *tsys.Ctx, n int) int {
		if n == 0 {
			return 1
		}
		j := twiceJoined.Fork(c, n-1)
		return j.Join(c) + j.Join(c)
	})
}

// TestJoinTwicePanics: a Forked is joined once; a second Join is a
// programming error that names the task, whether the task ran where it was
// forked or on a thief.
func TestJoinTwicePanics(t *testing.T) {
	checkNoLeak(t)
	for _, w := range []int{1, 2} {
		rt := tsys.New(tsys.Workers(w), tsys.Inline(inline.Never()))
		_, _, err := tsys.Run(context.Background(), rt, twiceJoined, 3)
		if err == nil || !strings.Contains(err.Error(), `"test.twiceJoined" joined twice`) {
			t.Errorf("workers=%d: got %v, want a panic about a second Join", w, err)
		}
	}
}

// TestJoinedFramesAreReused: with every fork a task on one worker, a run's
// allocations do not grow with the number of forks (fib(22) forks 18 times
// as often as fib(16)); joined frames go back to the worker.
func TestJoinedFramesAreReused(t *testing.T) {
	rt := tsys.New(tsys.Workers(1), tsys.Inline(inline.Never()))
	allocs := func(n int) float64 {
		return testing.AllocsPerRun(5, func() {
			v, st, err := tsys.Run(context.Background(), rt, fib.Task, n)
			if err != nil || v != fib.Exact(n) || st.Spawns == 0 {
				t.Fatalf("fib(%d): %d, %v, %d spawns", n, v, err, st.Spawns)
			}
		})
	}
	small, large := allocs(16), allocs(22)
	if large > small+5 {
		t.Errorf("fib(22) allocated %.0f times per run, fib(16) %.0f: joined frames are not reused", large, small)
	}
}
