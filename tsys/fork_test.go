package tsys_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

var (
	twiceJoined, oldestFirst, square *tsys.Task[int, int]
	forgetful, tidy                  *tsys.Task[int, int]
)

func init() {
	square = tsys.Register("test.square", func(c *tsys.Ctx, n int) int { return n * n })
	// oldestFirst joins its forks in the order it made them, so every Join
	// but the last finds newer tasks above its own: the slow path.
	oldestFirst = tsys.Register("test.oldestFirst", func(c *tsys.Ctx, n int) int {
		if n == 0 {
			return 0
		}
		var fs []tsys.Forked[int]
		for i := 1; i <= 4; i++ {
			fs = append(fs, square.Fork(c, n*10+i))
		}
		rest := oldestFirst.Fork(c, n-1)
		sum := 0
		for _, f := range fs {
			sum += f.Join(c)
		}
		return sum + rest.Join(c)
	})
	// forgetful forks a task it never joins.
	forgetful = tsys.Register("test.forgetful", func(c *tsys.Ctx, n int) int {
		if n == 0 {
			return 1
		}
		square.Fork(c, n)
		return forgetful.Call(c, n-1)
	})
	// tidy forks, and says whether its Fork left the frame in the
	// executor's Spawned (the fork protocol, sched/fork.go) before it
	// joins.
	tidy = tsys.Register("test.tidy", func(c *tsys.Ctx, n int) int {
		f := square.Fork(c, n)
		left := 0
		if tsys.FastPath(c).Spawned != tsys.FastPath(c).Token {
			left = 1
		}
		return 10*left + f.Join(c) - n*n
	})
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
	t.Setenv("TSYS_CHECK_COPIES", "0") // it tests the runtime without the check
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

// TestJoinInAnyOrder: joining forks oldest first gives the right results
// on every worker count: only the newest-first Join reuses a frame, and no
// frame is reused while a task may still read it.
func TestJoinInAnyOrder(t *testing.T) {
	checkNoLeak(t)
	want := 0
	for n := 1; n <= 30; n++ {
		for i := 1; i <= 4; i++ {
			want += (n*10 + i) * (n*10 + i)
		}
	}
	for _, w := range []int{1, 2, 4} {
		for _, pol := range []inline.Policy{inline.Never(), inline.Default()} {
			rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
			for range 20 {
				if got, _, err := tsys.Run(context.Background(), rt, oldestFirst, 30); err != nil || got != want {
					t.Fatalf("workers=%d inline=%v: oldestFirst = %d, %v; want %d", w, pol, got, err, want)
				}
			}
		}
	}
}

// TestForgottenForkPanics: a task that returns without joining a Forked
// it forked as a task breaks Fork's contract (Cilk's implicit sync), and
// the run ends with a panic naming it.
func TestForgottenForkPanics(t *testing.T) {
	checkNoLeak(t)
	for _, w := range []int{1, 2} {
		rt := tsys.New(tsys.Workers(w), tsys.Inline(inline.Never()))
		_, _, err := tsys.Run(context.Background(), rt, forgetful, 5)
		if err == nil || !strings.Contains(err.Error(), `task "test.forgetful", or a task it ran, returned without joining a Forked`) {
			t.Errorf("workers=%d: got %v, want a panic naming the task that forgot a Forked", w, err)
		}
		if v, _, err := tsys.Run(context.Background(), rt, oldestFirst, 3); err != nil || v == 0 {
			t.Errorf("workers=%d: the runtime is not usable after the panic: %d, %v", w, v, err)
		}
	}
}

// TestForkLeavesItsFrameOnlyWhenFast: a Fork that pushed a task leaves the
// frame in the executor's Spawned on the fast path, for the next slow path
// or Join to clear (sched/fork.go); under the race detector Fork's checked
// path takes it out at once, so that no other Fork can take it.
func TestForkLeavesItsFrameOnlyWhenFast(t *testing.T) {
	rt := tsys.New(tsys.Workers(1), tsys.Inline(inline.Never()))
	got, _, err := tsys.Run(context.Background(), rt, tidy, 7)
	want := 10
	if raceEnabled {
		want = 0
	}
	if err != nil || got != want {
		t.Fatalf("tidy = %d, %v; want %d (10: the frame was left in Spawned)", got, err, want)
	}
}
