package tsys_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/tsys-go/tsys/tsys"
)

// Tasks are registered once, at init, under names that are the same in
// every process of a cluster.
var (
	exFib    *tsys.Task[int, int]
	exSquare *tsys.Task[int, int]
	exSort   *tsys.Task[[]int, []int]
	exCheck  *tsys.Task[int, int]
	exSlow   *tsys.Task[int, int]

	exSumOfSquares, exTwice, exCheckAll *tsys.Task[int, int]
	exInPlace, exInPlaceClaimed         *tsys.Task[[]int, int]
	exCauseWatcher                      *tsys.Task[int, int]
	exCause                             = make(chan error, 1)
)

func init() {
	exFib = tsys.Register("example.fib", func(c *tsys.Ctx, n int) int {
		if n < 2 {
			return n
		}
		a := exFib.Fork(c, n-1) // a task, or a plain call when enough tasks are ready
		b := exFib.Call(c, n-2) // a plain call
		return a.Join(c) + b    // join every Fork once, before returning
	})
	exSquare = tsys.Register("example.square", func(c *tsys.Ctx, n int) int { return n * n })
	exSort = tsys.Register("example.sort", func(c *tsys.Ctx, xs []int) []int {
		out := slices.Clone(xs) // a new slice: the task returns a value
		slices.Sort(out)
		return out
	}, tsys.ByValue())
	exCheck = tsys.Register("example.check", checkNotSeven)
	exSlow = tsys.Register("example.slow", func(c *tsys.Ctx, n int) int {
		for range n {
			select {
			case <-c.Context().Done(): // the job failed or was cancelled: stop early
				return 0
			case <-time.After(time.Millisecond):
			}
		}
		return n
	})
	exSumOfSquares = tsys.Register("example.sumsq", func(c *tsys.Ctx, n int) int {
		forks := make([]tsys.Forked[int], n)
		for i := range forks {
			forks[i] = exSquare.Fork(c, i+1)
		}
		total := 0
		for i := len(forks) - 1; i >= 0; i-- { // newest first is cheapest
			total += forks[i].Join(c)
		}
		return total
	})
	exTwice = tsys.Register("example.twice", func(c *tsys.Ctx, n int) int {
		f := exSquare.Spawn(c, n)
		return f.Get(c) + f.Get(c)
	})
	exCheckAll = tsys.Register("example.checkall", func(c *tsys.Ctx, n int) int {
		forks := make([]tsys.Forked[int], n)
		for i := range forks {
			forks[i] = exCheck.Fork(c, i+1)
		}
		total := 0
		for i := len(forks) - 1; i >= 0; i-- {
			total += forks[i].Join(c)
		}
		return total
	})
	exCauseWatcher = tsys.Register("example.causewatcher", func(c *tsys.Ctx, _ int) int {
		ctx := c.Context() // a context.Context: hand it to any API
		defer func() { exCause <- context.Cause(ctx) }()
		return exCheck.Call(c, 7)
	})
	// Sorts its argument's memory in place: right on one node, wrong on
	// another, which sorts a copy.
	exInPlace = tsys.Register("example.inplace", func(c *tsys.Ctx, xs []int) int {
		slices.Sort(xs)
		return len(xs)
	})
	exInPlaceClaimed = tsys.Register("example.inplace.claimed", func(c *tsys.Ctx, xs []int) int {
		slices.Sort(xs)
		return len(xs)
	}, tsys.ByValue()) // a false claim
}

// checkNotSeven fails the job on a multiple of 7: Fail does not return.
func checkNotSeven(c *tsys.Ctx, n int) int {
	if n%7 == 0 {
		c.Fail(fmt.Errorf("%d is a multiple of 7", n))
	}
	return n
}

// A task with no result: registered for what it does.
var exPrint = tsys.RegisterAction("example.print", func(c *tsys.Ctx, msg string) {
	fmt.Println(msg)
})

// Register a task function and run it as a job's root on a runtime.
func ExampleRegister() {
	rt := tsys.New(tsys.Workers(2))
	v, _, err := tsys.Run(context.Background(), rt, exFib, 20)
	fmt.Println(v, err)
	// Output: 6765 <nil>
}

// Fork and Join are Cilk's spawn and sync: the forking task joins each
// Forked exactly once, before it returns.
func ExampleTask_Fork() {
	v, _, _ := tsys.Run(context.Background(), tsys.New(), exSumOfSquares, 10)
	fmt.Println(v)
	// Output: 385
}

// Spawn returns a Future, which any task may read, any number of times.
func ExampleTask_Spawn() {
	v, _, _ := tsys.Run(context.Background(), tsys.New(), exTwice, 12)
	fmt.Println(v)
	// Output: 288
}

// RegisterAction registers a task with no result; its Run returns
// struct{}, which the program ignores.
func ExampleRegisterAction() {
	_, _, err := tsys.Run(context.Background(), tsys.New(), exPrint, "hello from a task")
	fmt.Println(err)
	// Output:
	// hello from a task
	// <nil>
}

// The first Fail fails the job: no task starts after it, and Run returns
// it, naming the task; errors.Is and errors.As reach the task's own error.
func ExampleCtx_Fail() {
	rt := tsys.New(tsys.Workers(1))
	v, _, err := tsys.Run(context.Background(), rt, exCheckAll, 6)
	fmt.Println(v, err)
	_, _, err = tsys.Run(context.Background(), rt, exCheckAll, 100)
	var te *tsys.TaskError
	fmt.Println(errors.As(err, &te), te.Task)
	// Output:
	// 21 <nil>
	// true example.check
}

// A task that runs long polls its context's Done, so that a cancelled job
// ends as soon as its running tasks notice.
func ExampleCtx_Context_poll() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, _, err := tsys.Run(ctx, tsys.New(), exSlow, 60_000) // a minute, if nobody stops it
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output: true
}

// A task whose argument or result holds references crosses nodes only
// when registered ByValue: it takes values and returns new memory.
func ExampleByValue() {
	fmt.Println(exSort.WhyLocal() == nil)
	in := []int{3, 1, 2}
	out, _, _ := tsys.Run(context.Background(), tsys.New(), exSort, in)
	fmt.Println(in, out)
	// Output:
	// true
	// [3 1 2] [1 2 3]
}

// TSYS_CHECK_COPIES=1 runs every task that may cross nodes on copies, as
// another node would: a task falsely declared ByValue, which sorts its
// argument in place, then leaves the caller's slice unsorted on one node
// too, where a test sees it. A test suite runs under the check as
// TSYS_CHECK_COPIES=1 go test ./...; here the example sets the variable
// before each New, which reads it.
func Example_checkCopies() {
	defer os.Setenv("TSYS_CHECK_COPIES", os.Getenv("TSYS_CHECK_COPIES"))
	for _, check := range []string{"0", "1"} {
		os.Setenv("TSYS_CHECK_COPIES", check)
		xs := []int{3, 1, 2}
		tsys.Run(context.Background(), tsys.New(), exInPlaceClaimed, xs)
		fmt.Println(xs)
	}
	// Output:
	// [1 2 3]
	// [3 1 2]
}

// A task hands its job's context to anything that takes one; it is done
// when the job fails or ends, with the reason as its cause.
func ExampleCtx_Context() {
	rt := tsys.New(tsys.Workers(1))
	_, _, err := tsys.Run(context.Background(), rt, exCauseWatcher, 0)
	fmt.Println(err)
	fmt.Println(<-exCause)
	// Output:
	// task "example.check": 7 is a multiple of 7 (in github.com/tsys-go/tsys/tsys_test.checkNotSeven)
	// task "example.check": 7 is a multiple of 7 (in github.com/tsys-go/tsys/tsys_test.checkNotSeven)
}

// TaskError names the task whose error failed the job; errors.Is and
// errors.As reach the task's own error through it.
func ExampleTaskError() {
	_, _, err := tsys.Run(context.Background(), tsys.New(), exCheckAll, 10)
	var te *tsys.TaskError
	if errors.As(err, &te) {
		fmt.Println(te.Task, "|", te.Err)
	}
	// Output: example.check | 7 is a multiple of 7
}

// Without ByValue, a task that takes a slice stays on its node, and says
// why.
func ExampleTask_WhyLocal() {
	fmt.Println(exInPlace.WhyLocal())
	// Output:
	// type []int holds a reference ([]int): a copy on another node would not share its memory; register the task with tsys.ByValue() if it only reads it
}

// Tree is a pointer tree, a recursive type: its tasks stay on their node,
// whatever the options, and still run, on the node's workers.
type Tree struct {
	L, R *Tree
	V    int64
}

var exTreeSum *tsys.Task[*Tree, int64]

func init() {
	exTreeSum = tsys.Register("example.treesum", func(c *tsys.Ctx, t *Tree) int64 {
		if t == nil {
			return 0
		}
		l := exTreeSum.Fork(c, t.L)
		return t.V + exTreeSum.Call(c, t.R) + l.Join(c)
	}, tsys.ByValue())
}

// A type the codec cannot carry registers all the same; WhyLocal names the
// field that stops it and what to do.
func ExampleTask_WhyLocal_recursive() {
	fmt.Println(exTreeSum.WhyLocal())
	tree := &Tree{V: 1, L: &Tree{V: 2}, R: &Tree{V: 3, R: &Tree{V: 4}}}
	sum, _, err := tsys.Run(context.Background(), tsys.New(), exTreeSum, tree)
	fmt.Println(sum, err)
	// Output:
	// values of type *tsys_test.Tree cannot cross nodes: Tree.L (*tsys_test.Tree) makes the type recursive: a value of it may share a node or hold a cycle, which a copy cannot keep; pass a value that is not recursive (a node's own numbers, or a slice of nodes linked by index), or implement encoding.BinaryMarshaler and BinaryUnmarshaler on tsys_test.Tree, or keep the task on its node (it still runs, on this node's workers)
	// 10 <nil>
}
