package tsys_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// within runs f on a goroutine of its own and fails the test if it has not
// returned within bound: the runs these tests start must never hang, and
// a regression must fail rather than stop the suite.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(bound):
		t.Fatalf("%s has not returned within %v: it hangs", what, bound)
	}
}

// fibOfRun is a task that runs fib(n) as a run of its own, on the runtime
// of its run, from inside the task: a library that uses tsys, called from
// a task.
var (
	nestedRT  *tsys.Runtime
	fibOfRun  *tsys.Task[int, int64]
	fibOfDo   *tsys.Task[int, int64]
	errNested = errors.New("the nested run failed")
)

func init() {
	fibOfRun = tsys.Register("test.nested.run", func(c *tsys.Ctx, n int) int64 {
		v, _, err := tsys.Run(c.Context(), nestedRT, fib.Task, n)
		if err != nil {
			c.Fail(err)
		}
		return v
	})
	fibOfDo = tsys.Register("test.nested.do", func(c *tsys.Ctx, n int) int64 {
		v, _, err := tsys.Do(c.Context(), nestedRT, func(c *tsys.Ctx) int64 { return fib.Task.Call(c, n) })
		if err != nil {
			c.Fail(err)
		}
		return v
	})
}

func TestRunAndDoInsideATaskOfTheSameRuntime(t *testing.T) {
	checkNoLeak(t)
	for _, w := range []int{1, 2} {
		nestedRT = tsys.New(tsys.Workers(w))
		for _, task := range []*tsys.Task[int, int64]{fibOfRun, fibOfDo} {
			within(t, tsys.NameOf(task), func() {
				got, _, err := tsys.Run(context.Background(), nestedRT, task, 18)
				if err != nil || got != fib.Serial(18) {
					t.Errorf("workers=%d %s: %d, %v; want %d", w, tsys.NameOf(task), got, err, fib.Serial(18))
				}
			})
		}
	}
}

func TestDoInsideDoInsideDo(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2))
	within(t, "three nested Dos", func() {
		got, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int {
			var a, b int
			tsys.Both(c, func(c *tsys.Ctx) {
				a, _, _ = tsys.Do(c.Context(), rt, func(c *tsys.Ctx) int {
					v, _, _ := tsys.Do(c.Context(), rt, func(*tsys.Ctx) int { return 1 })
					return v + 1
				})
			}, func(c *tsys.Ctx) {
				b, _, _ = tsys.Do(c.Context(), rt, func(*tsys.Ctx) int { return 10 })
			})
			return a + b
		})
		if err != nil || got != 12 {
			t.Errorf("nested Dos gave %d, %v; want 12", got, err)
		}
	})
}

// rendezvous is a root that tells mine it runs, then waits for theirs:
// two such roots on one runtime return only if their runs are on at the
// same time. A root that waited bound in vain fails its run.
func rendezvous(mine chan<- struct{}, theirs <-chan struct{}) func(c *tsys.Ctx) error {
	return func(c *tsys.Ctx) error {
		close(mine)
		select {
		case <-theirs:
			return nil
		case <-c.Context().Done():
			return c.Context().Err()
		case <-time.After(bound):
			return errors.New("the other run did not start while this one ran: runs are serialized")
		}
	}
}

// doErr is Do for a closure that may fail: it panics with its error,
// which Do returns in a *TaskPanic.
func doErr(ctx context.Context, rt *tsys.Runtime, f func(c *tsys.Ctx) error) error {
	_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
		if err := f(c); err != nil {
			panic(err)
		}
		return 0
	})
	return err
}

func TestTwoRunsAtOnceRunAtTheSameTime(t *testing.T) {
	checkNoLeak(t)
	for _, w := range []int{1, 2} {
		rt := tsys.New(tsys.Workers(w), tsys.Inline(inline.Never()))
		a, b := make(chan struct{}), make(chan struct{})
		errs := make(chan error, 2)
		within(t, "two runs that meet", func() {
			go func() { errs <- doErr(context.Background(), rt, rendezvous(a, b)) }()
			go func() { errs <- doErr(context.Background(), rt, rendezvous(b, a)) }()
			for range 2 {
				if err := <-errs; err != nil {
					t.Errorf("workers=%d: %v", w, err)
				}
			}
		})
		// Both pools are free again: the runtime runs the next job.
		if got, _, err := tsys.Run(context.Background(), rt, fib.Task, 15); err != nil || got != fib.Serial(15) {
			t.Errorf("workers=%d: the run after: %d, %v", w, got, err)
		}
	}
}

func TestAFailedRunFailsNoOtherRun(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2))
	a, b := make(chan struct{}), make(chan struct{})
	aEnded := make(chan error, 1)
	var bErr error
	var bGot int64
	within(t, "a failing run beside a working one", func() {
		go func() {
			aEnded <- doErr(context.Background(), rt, func(c *tsys.Ctx) error {
				if err := rendezvous(a, b)(c); err != nil {
					return err
				}
				panic("run A fails")
			})
		}()
		bGot, _, bErr = tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int64 {
			if err := rendezvous(b, a)(c); err != nil {
				panic(err)
			}
			// A fails while B runs: B goes on, and finishes its own work.
			if err := <-aEnded; err == nil {
				panic("run A did not fail")
			}
			return fib.Task.Call(c, 20)
		})
	})
	if bErr != nil || bGot != fib.Serial(20) {
		t.Errorf("run B: %d, %v; want %d and no error", bGot, bErr, fib.Serial(20))
	}
}

func TestANestedRunEndsWithTheOuterRunsFailure(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2))
	ctx, cancel := context.WithCancelCause(context.Background())
	within(t, "a cancelled outer run", func() {
		_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
			started := make(chan struct{})
			go func() {
				<-started
				cancel(errMine)
			}()
			// The inner run is given the outer one's context: it ends
			// when the outer run is cancelled.
			_, _, inner := tsys.Do(c.Context(), rt, waitForCancel(started))
			if !errors.Is(inner, errMine) {
				t.Errorf("the inner run's error %v does not reach the outer run's cause", inner)
			}
			return 0
		})
		if !errors.Is(err, context.Canceled) || !errors.Is(err, errMine) {
			t.Errorf("the outer run's error = %v", err)
		}
	})
}
