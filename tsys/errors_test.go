package tsys_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// bound is how long a test waits for what must happen at once before it
// fails: a regression then fails the test instead of hanging the suite.
const bound = 30 * time.Second

// waitForCancel is a root that tells started it runs, then waits until
// its run's context is done (or bound passes: it then returns -1, which
// the tests reject).
func waitForCancel(started chan<- struct{}) func(c *tsys.Ctx) int {
	return func(c *tsys.Ctx) int {
		close(started)
		select {
		case <-c.Context().Done():
			return 0
		case <-time.After(bound):
			return -1
		}
	}
}

// runUntilCancelled runs waitForCancel on ctx and calls cancel once the
// root runs, returning the run's error.
func runUntilCancelled(t *testing.T, ctx context.Context, cancel func()) error {
	t.Helper()
	rt := tsys.New(tsys.Workers(2))
	started := make(chan struct{})
	if cancel != nil {
		go func() {
			<-started
			cancel()
		}()
	}
	v, _, err := tsys.Do(ctx, rt, waitForCancel(started))
	if err == nil {
		t.Fatalf("the run returned %d and no error; want it cancelled", v)
	}
	return err
}

var errMine = errors.New("the user's own reason")

func TestCancelWithCauseIsCanceledAndTheCause(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	err := runUntilCancelled(t, ctx, func() { cancel(errMine) })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%v, context.Canceled) = false", err)
	}
	if !errors.Is(err, errMine) {
		t.Errorf("errors.Is(%v, the cause) = false", err)
	}
	if !errors.Is(err, context.Cause(ctx)) {
		t.Errorf("errors.Is(%v, context.Cause(ctx)) = false", err)
	}
}

func TestPlainCancelSaysCanceledOnce(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := runUntilCancelled(t, ctx, cancel)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%v, context.Canceled) = false", err)
	}
	if got := err.Error(); got != "run cancelled: context canceled" {
		t.Errorf("err = %q, want %q", got, "run cancelled: context canceled")
	}
}

func TestDeadlineIsDeadlineExceeded(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	err := runUntilCancelled(t, ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want DeadlineExceeded and not Canceled", err)
	}
}

func TestDeadlineWithCauseIsBoth(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithDeadlineCause(context.Background(), time.Now().Add(time.Millisecond), errMine)
	defer cancel()
	err := runUntilCancelled(t, ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errMine) {
		t.Errorf("err = %v, want DeadlineExceeded and the cause", err)
	}
}

func TestAPanicIsATsysTaskPanic(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	_, _, err := tsys.Run(context.Background(), rt, panicky, 4)
	if got := fmt.Sprintf("%T", err); got != "*tsys.TaskPanic" {
		t.Errorf("%%T of a panic's error = %s, want *tsys.TaskPanic", got)
	}
	var tp *tsys.TaskPanic
	if !errors.As(err, &tp) || tp.Task != "test.panicky" || tp.Value != "boom at the leaf" {
		t.Fatalf("err = %v, want a *tsys.TaskPanic of test.panicky", err)
	}
	if !strings.Contains(tp.Func, "tsys_test.init") {
		t.Errorf("Func = %q, want the registered function (tsys_test.init.funcN)", tp.Func)
	}
}

func TestAPanicInAJoinNamesTheClosure(t *testing.T) {
	checkNoLeak(t)
	for _, pol := range []inline.Policy{inline.Never(), inline.Default()} {
		rt := tsys.New(tsys.Workers(2), tsys.Inline(pol))
		_, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int {
			tsys.Both(c, func(*tsys.Ctx) {}, func(*tsys.Ctx) { panic("in the second closure") })
			return 0
		})
		var tp *tsys.TaskPanic
		if !errors.As(err, &tp) {
			t.Fatalf("%v: err = %v, want a *tsys.TaskPanic", pol, err)
		}
		if !strings.Contains(tp.Func, "TestAPanicInAJoinNamesTheClosure") {
			t.Errorf("%v: Func = %q, want the test's closure", pol, tp.Func)
		}
		if !strings.Contains(err.Error(), "(in github.com/tsys-go/tsys/tsys_test.TestAPanicInAJoinNamesTheClosure") {
			t.Errorf("%v: the error's text does not name the closure:\n%v", pol, err)
		}
	}
}

func TestAnIndexPanicNamesTheProgramsFunction(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(1))
	_, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int {
		return outOfRange(nil, 3)
	})
	var tp *tsys.TaskPanic
	if !errors.As(err, &tp) || !strings.HasSuffix(tp.Func, "tsys_test.outOfRange") {
		t.Fatalf("err = %v (Func %q), want a *tsys.TaskPanic raised in outOfRange, not in the Go runtime", err, tp.Func)
	}
	var re runtime.Error
	if !errors.As(err, &re) {
		t.Errorf("errors.As(%v, runtime.Error) = false", err)
	}
}

//go:noinline
func outOfRange(s []int, i int) int { return s[i] }

// unregistered is a task never registered: a Task variable whose init
// function has not run.
var unregistered *tsys.Task[int, int]

func TestNilRuntimeTaskContextAreErrors(t *testing.T) {
	rt := tsys.New(tsys.Workers(1))
	ctx := context.Background()
	var noContext context.Context
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"Run nil runtime", func() error { _, _, err := tsys.Run(ctx, nil, fib.Task, 3); return err }, "tsys.Run: nil *Runtime: make one with tsys.New()"},
		{"Run nil task", func() error { _, _, err := tsys.Run(ctx, rt, unregistered, 3); return err }, "tsys.Run: nil *Task: the task is used before it is registered"},
		{"Run nil context", func() error { _, _, err := tsys.Run(noContext, rt, fib.Task, 3); return err }, "tsys.Run: nil context.Context"},
		{"Do nil runtime", func() error {
			_, _, err := tsys.Do(ctx, nil, func(*tsys.Ctx) int { return 0 })
			return err
		}, "tsys.Do: nil *Runtime: make one with tsys.New()"},
		{"Do nil function", func() error { _, _, err := tsys.Do[int](ctx, rt, nil); return err }, "tsys.Do: nil function"},
	}
	for _, c := range cases {
		err := c.run()
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one beginning %q", c.name, err, c.want)
		}
	}
}

func TestAMethodOfANilTaskSaysSo(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2))
	uses := map[string]func(c *tsys.Ctx) int{
		"Fork":  func(c *tsys.Ctx) int { return unregistered.Fork(c, 1).Join(c) },
		"Spawn": func(c *tsys.Ctx) int { return unregistered.Spawn(c, 1).Get(c) },
		"Call":  func(c *tsys.Ctx) int { return unregistered.Call(c, 1) },
	}
	for method, use := range uses {
		_, _, err := tsys.Do(context.Background(), rt, use)
		var tp *tsys.TaskPanic
		if !errors.As(err, &tp) {
			t.Fatalf("%s: err = %v, want a *tsys.TaskPanic", method, err)
		}
		// Fork, Spawn and Call fault on a nil Task or a nil Ctx alike, and
		// say both.
		want := "tsys: Task." + method + " called on a nil *Task or given a nil *tsys.Ctx: a task is nil until tsys.Register assigns it"
		if msg := fmt.Sprint(tp.Value); !strings.HasPrefix(msg, want) {
			t.Errorf("%s: panic value %q, want one beginning %q", method, msg, want)
		}
		var re runtime.Error
		if !errors.As(err, &re) {
			t.Errorf("%s: the nil dereference is not reachable with errors.As: %v", method, err)
		}
	}
	if err := unregistered.WhyLocal(); err == nil || !strings.Contains(err.Error(), "Task.WhyLocal called on a nil *Task") {
		t.Errorf("WhyLocal of a nil task = %v", err)
	}
}

func TestWorkersNotPositiveMeansGOMAXPROCS(t *testing.T) {
	for _, n := range []int{0, -3} {
		if got, want := tsys.WorkersOf(tsys.New(tsys.Workers(n))), runtime.GOMAXPROCS(0); got != want {
			t.Errorf("Workers(%d) gives %d workers, want GOMAXPROCS = %d", n, got, want)
		}
	}
	if got := tsys.WorkersOf(tsys.New(tsys.Workers(3))); got != 3 {
		t.Errorf("Workers(3) gives %d workers", got)
	}
}
