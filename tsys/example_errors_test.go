package tsys_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tsys-go/tsys/tsys"
)

// A run that its context ends returns an error that is context.Canceled
// (or context.DeadlineExceeded), and also the cause the context was
// cancelled with.
func ExampleRun_cancelWithCause() {
	errQuota := errors.New("quota spent")
	ctx, cancel := context.WithCancelCause(context.Background())
	_, _, err := tsys.Do(ctx, tsys.New(), func(c *tsys.Ctx) int {
		cancel(errQuota)     // from anywhere: another goroutine, a task
		<-c.Context().Done() // a long task polls its context
		return 0
	})
	fmt.Println(errors.Is(err, context.Canceled), errors.Is(err, errQuota))
	fmt.Println(err)
	// Output:
	// true true
	// run cancelled: quota spent (context canceled)
}

// A panic in a task, or in a closure of Both or Do, is a *tsys.TaskPanic:
// Task is the registered name of the innermost task (the runtime's own,
// for a closure), Func the function that panicked.
func ExampleTaskPanic() {
	_, _, err := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) int {
		tsys.Both(c, func(*tsys.Ctx) {}, func(*tsys.Ctx) { panic("no such leaf") })
		return 0
	})
	var tp *tsys.TaskPanic
	if errors.As(err, &tp) {
		fmt.Printf("%T %v\n%s\n", err, tp.Value, tp.Func)
	}
	// Output:
	// *tsys.TaskPanic no such leaf
	// github.com/tsys-go/tsys/tsys_test.ExampleTaskPanic.func1.2
}

// Run and Do may be called from inside a task, on the task's own runtime
// (a library that uses tsys, called from a task): the inner call is a run
// of its own, on a spare set of workers, and is given the task's context,
// so that it ends if the outer run fails.
func ExampleDo_insideATask() {
	rt := tsys.New()
	sumTo := func(ctx context.Context, n int) int { // a library's function
		s, _, _ := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
			return tsys.Fold(c, 1, n+1, func() int { return 0 }, func(_ *tsys.Ctx, lo, hi, t int) int {
				for i := lo; i < hi; i++ {
					t += i
				}
				return t
			}, func(a, b int) int { return a + b })
		})
		return s
	}
	v, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int {
		return sumTo(c.Context(), 100) + 1
	})
	fmt.Println(v, err)
	// Output: 5051 <nil>
}

// A task used before the init function that registers it has run is nil;
// Run says so, rather than panicking.
func ExampleRun_nilTask() {
	var notYet *tsys.Task[int, int]
	_, _, err := tsys.Run(context.Background(), tsys.New(), notYet, 1)
	fmt.Println(err)
	// Output: tsys.Run: nil *Task: the task is used before it is registered; assign it with tsys.Register in a package-level var or an init function
}

// A runtime of two workers. Workers(0), or any n <= 0, is the default:
// one worker per runtime.GOMAXPROCS, as it is when New is called.
func ExampleWorkers() {
	rt := tsys.New(tsys.Workers(2))
	v, _, err := tsys.Run(context.Background(), rt, Fib, 20)
	fmt.Println(v, err)
	// Output: 6765 <nil>
}
