package tsys_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// leafError is an error type of the program's own, to be found again
// with errors.As through the run's error.
type leafError struct{ Leaf int }

func (e *leafError) Error() string { return "leaf " + string(rune('0'+e.Leaf%10)) + " failed" }

// fanOut is a job of many leaves under one root, forked in a loop and
// joined newest first: after a failure, a Join that did not check for
// one would run every leaf left.
type fanOut struct {
	Leaves, FailAt int
	Panic          bool
}

var (
	fanTask  *tsys.Task[fanOut, int]
	leafTask *tsys.Task[fanOut, int]
	// leavesBegunAfter counts the leaves that began after the job's
	// context was done (after its failure); leafIndex numbers the leaves.
	leavesBegunAfter atomic.Int64
	leafIndex        atomic.Int64
)

func init() {
	leafTask = tsys.Register("test.leaf", func(c *tsys.Ctx, f fanOut) int {
		if c.Context().Err() != nil {
			leavesBegunAfter.Add(1)
		}
		if int(leafIndex.Add(1)) == f.FailAt {
			if f.Panic {
				panic(&leafError{Leaf: f.FailAt})
			}
			c.Fail(&leafError{Leaf: f.FailAt})
		}
		time.Sleep(200 * time.Microsecond)
		return 1
	})
	fanTask = tsys.Register("test.fan", func(c *tsys.Ctx, f fanOut) int {
		forks := make([]tsys.Forked[int], f.Leaves)
		for i := range forks {
			forks[i] = leafTask.Fork(c, f)
		}
		n := 0
		for i := len(forks) - 1; i >= 0; i-- {
			n += forks[i].Join(c)
		}
		return n
	})
}

func resetLeaves() {
	leavesBegunAfter.Store(0)
	leafIndex.Store(0)
}

// TestErrorCancelsSiblings: the first error ends the job as errgroup's
// does. No leaf begins once the job has failed, but for one per worker
// that was already on its way in (it passed its last check before the
// failure was recorded); Run returns the error as a *TaskError through
// which the program's own error type is found; and the runtime runs the
// next job. A panic takes the same path.
func TestErrorCancelsSiblings(t *testing.T) {
	checkNoLeak(t)
	for _, panics := range []bool{false, true} {
		for _, w := range []int{1, 2} {
			for _, pol := range []inline.Policy{inline.Never(), inline.Default()} {
				resetLeaves()
				rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
				const leaves, failAt = 1000, 5
				_, _, err := tsys.Run(context.Background(), rt, fanTask, fanOut{Leaves: leaves, FailAt: failAt, Panic: panics})
				var le *leafError
				if !errors.As(err, &le) || le.Leaf != failAt {
					t.Fatalf("panic=%v workers=%d %v: err = %v, want one holding leaf %d's *leafError", panics, w, pol, err, failAt)
				}
				if panics {
					// A panic names the innermost task that was spawned
					// as a task: an inlined leaf's is its root's.
					var tp *tsys.TaskPanic
					if !errors.As(err, &tp) || tp.Task != "test.leaf" && (pol == inline.Never() || tp.Task != "test.fan") {
						t.Errorf("panic=%v: err = %v, want a *TaskPanic of test.leaf", panics, err)
					}
				} else {
					var te *tsys.TaskError
					if !errors.As(err, &te) || te.Task != "test.leaf" || !strings.HasPrefix(err.Error(), `task "test.leaf": leaf 5 failed`) {
						t.Errorf("err = %v, want a *TaskError naming test.leaf", err)
					}
				}
				if after := leavesBegunAfter.Load(); after > int64(w) {
					t.Errorf("panic=%v workers=%d %v: %d leaves began after the failure, want at most %d", panics, w, pol, after, w)
				}
				resetLeaves()
				n, _, err := tsys.Run(context.Background(), rt, fanTask, fanOut{Leaves: 50})
				if err != nil || n != 50 {
					t.Fatalf("the next job: %d, %v; want 50, nil", n, err)
				}
			}
		}
	}
}

var (
	pollingTask *tsys.Task[int, int]
	pollers     atomic.Int64
	sawDone     atomic.Int64
)

func init() {
	// A leaf that would run for a minute, polling its job's context
	// each millisecond, as the program's long tasks should.
	poller := tsys.Register("test.poller", func(c *tsys.Ctx, _ int) int {
		pollers.Add(1)
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			select {
			case <-c.Context().Done():
				sawDone.Add(1)
				return 0
			case <-time.After(time.Millisecond):
			}
		}
		return 1
	})
	pollingTask = tsys.Register("test.polling", func(c *tsys.Ctx, n int) int {
		var fs []tsys.Forked[int]
		for range n {
			fs = append(fs, poller.Fork(c, 0))
		}
		s := 0
		for i := len(fs) - 1; i >= 0; i-- {
			s += fs[i].Join(c)
		}
		return s
	})
}

// TestCancelledRunStopsPollingTasks: cancelling the caller's context ends
// a run of minute-long tasks that poll Done: each running one sees it,
// and no other begins. (How soon Run returns is measured by
// BenchmarkCancel, not here: this machine may not run the test's
// goroutines for a while.)
func TestCancelledRunStopsPollingTasks(t *testing.T) {
	checkNoLeak(t)
	for _, w := range []int{1, 2} {
		pollers.Store(0)
		sawDone.Store(0)
		rt := tsys.New(tsys.Workers(w), tsys.Inline(inline.Never()))
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for pollers.Load() < int64(w) {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		_, _, err := tsys.Run(ctx, rt, pollingTask, 100)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("workers=%d: err = %v, want context.Canceled", w, err)
		}
		if p, d := pollers.Load(), sawDone.Load(); p != d || p > int64(2*w) {
			t.Errorf("workers=%d: %d tasks began and %d saw Done; want all to see it, and at most %d to begin", w, p, d, 2*w)
		}
	}
}

var (
	lateTask *tsys.Task[int, int]
	lateDone = make(chan error, 1)
)

func init() {
	late := tsys.Register("test.late", func(c *tsys.Ctx, _ int) int {
		lateDone <- nil
		<-c.Context().Done() // the run ends when its root is done
		c.Fail(errors.New("failed after the job ended"))
		return 0
	})
	lateTask = tsys.Register("test.lateroot", func(c *tsys.Ctx, _ int) int {
		late.Spawn(c, 0) // never read
		select {
		case <-lateDone: // a thief runs it
			return 7
		case <-time.After(time.Minute):
			return -1 // nobody took it: the test has not tested anything
		}
	})
}

// TestErrorAfterTheJobEndedIsDropped: a task still running when its root
// is done sees Done, and the error it returns then is not the job's: the
// job succeeded, and the next one starts clean.
func TestErrorAfterTheJobEndedIsDropped(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	v, _, err := tsys.Run(context.Background(), rt, lateTask, 0)
	if err != nil || v != 7 {
		t.Fatalf("run = %d, %v; want 7, nil", v, err)
	}
	n, _, err := tsys.Run(context.Background(), rt, fanTask, fanOut{Leaves: 10})
	if err != nil || n != 10 {
		t.Fatalf("the next job: %d, %v", n, err)
	}
}

type nilErr struct{}

func (*nilErr) Error() string { return "a typed nil" }

var typedNil *tsys.Task[bool, int]

func init() {
	typedNil = tsys.Register("test.typednil", func(c *tsys.Ctx, typed bool) int {
		if typed {
			var e *nilErr
			c.Fail(e) // a non-nil error holding a nil pointer: a failure, as for errgroup
		}
		return 2
	})
}

// TestNilErrors: a nil error is success; an error interface holding a
// nil pointer is a failure, reported without calling its method on nil.
func TestNilErrors(t *testing.T) {
	rt := tsys.New(tsys.Workers(1))
	if v, _, err := tsys.Run(context.Background(), rt, typedNil, false); err != nil || v != 2 {
		t.Fatalf("nil error: %d, %v", v, err)
	}
	_, _, err := tsys.Run(context.Background(), rt, typedNil, true)
	var ne *nilErr
	if !errors.As(err, &ne) || ne != nil {
		t.Fatalf("typed nil: err = %v, want one holding a nil *nilErr", err)
	}
}

var (
	errBoom   = errors.New("boom")
	causeSeen = make(chan error, 1)
	fails     *tsys.Task[int, int]
	watch     *tsys.Task[int, int]
)

func init() {
	fails = tsys.Register("test.cause.fail", func(c *tsys.Ctx, _ int) int {
		c.Fail(errBoom)
		return 0
	})
	watch = tsys.Register("test.cause", func(c *tsys.Ctx, _ int) int {
		ctx := c.Context()
		defer func() { causeSeen <- context.Cause(ctx) }()
		return fails.Call(c, 0)
	})
}

// TestContextCarriesTheCause: a task sees its job's own error as the
// cause of Ctx.Context, and the job's context is done once it fails.
func TestContextCarriesTheCause(t *testing.T) {
	rt := tsys.New(tsys.Workers(1))
	_, _, err := tsys.Run(context.Background(), rt, watch, 0)
	if !errors.Is(err, errBoom) {
		t.Fatalf("err = %v", err)
	}
	if c := <-causeSeen; !errors.Is(c, errBoom) {
		t.Fatalf("the task's context's cause = %v, want the job's error", c)
	}
}
