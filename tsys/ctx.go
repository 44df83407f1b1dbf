package tsys

import (
	"context"

	"github.com/tsys-go/tsys/internal/sched"
)

// Ctx is the context of a running task: pass it to Spawn, Call and Get.
// It belongs to the goroutine running the task; never keep it after the task
// returns or hand it to another goroutine.
//
// Ctx is the scheduler's executor under a type of this package, not an
// alias of it: Go does not make inline bodies available through an alias to
// a package that imports only the alias's package (golang/go#74783), so
// AllowCCall would stay a call in every task package. The executor's
// exported fields show through (Fork's inlined fast path needs them);
// they are the runtime's, not the program's, to touch.
type Ctx sched.Executor

func (c *Ctx) executor() *sched.Executor { return (*sched.Executor)(c) }

// Context is the job's context: done when the job fails (a task's error
// or panic, the caller's cancellation, a failure on another node), with
// that error as its cause (context.Cause), and when the job ends. Unlike
// the Ctx, it may be handed to other goroutines and to any API that takes
// a context, such as an HTTP request the task makes.
func (c *Ctx) Context() context.Context { return c.executor().Context() }

// Done is closed when the job fails or ends.
//
// Deprecated: use c.Context().Done(), the same channel.
func (c *Ctx) Done() <-chan struct{} { return c.executor().Context().Done() }

// Err is nil while the job runs, and context.Canceled once it has failed
// or ended.
//
// Deprecated: use c.Context().Err(), the same error; context.Cause of the
// context says why the job ended.
func (c *Ctx) Err() error { return c.executor().Context().Err() }

// AllowCCall is NewTS's allowCCall for task code: may the spawn about to be
// made run as a direct call? A yes counts as an inlined spawn. It is the
// question the fast clone that go generate writes asks (cmd/tsysclone),
// and it lets a task write Cilk's "fast clone" by hand:
//
//	func fib(c *tsys.Ctx, n int) int64 {
//		if n < 2 {
//			return int64(n)
//		}
//		if c.AllowCCall() {
//			return fib(c, n-1) + fib(c, n-2) // a C-call: plain recursion
//		}
//		a := Fib.Spawn(c, n-1) // a T-call
//		return fib(c, n-2) + a.Get(c)
//	}
//
// Spawn and Fork ask the same question from inside themselves. Fork is
// inlined into the task function, so an inlined Fork costs a decrement and
// an indirect call of the task function; Spawn is not (a Future's frame
// must be taken out of the executor at once), so an inlined Spawn costs a
// call more. AllowCCall goes one step further than Fork: on a yes the task
// recurses with direct calls, as the serial code does (bench/README.md,
// "Natural code").
//
// The answer is cached for a few microseconds as credit, as Spawn's is;
// after a no, the Spawn that follows asks the policy again.
func (c *Ctx) AllowCCall() (ccall bool) {
	// Written so as to stay within Go's inlining budget, with one call
	// into the scheduler on a spent credit: AskSpawn, which asks the
	// policy without a call of its own (TestAllowCCallInlinesIntoTaskCode).
	if c.Fast.Credit--; int(c.Fast.Credit) < 0 {
		_, ccall = (*sched.Executor)(c).AskSpawn(nil)
		return ccall
	}
	return true
}

// stopIfEnded unwinds the calling task once its job has failed, been
// cancelled or ended: a cancellation point where the program's code runs
// next without a spawn that would ask (a Join's second closure, a loop's
// next chunk, Task.Call). One atomic load while the job runs.
func (c *Ctx) stopIfEnded() {
	if c.Fast.Ending.Load() != 0 {
		panic(aborted)
	}
}

// Fail fails the job with err, errgroup's first error, and unwinds the
// calling task: Fail does not return. It is the one way a task or a
// closure (Do, Both, Pair, For, Fold) fails, whatever its shape: no task
// starts after it, on any node; the tasks running see it through
// c.Context(); and Run or Do returns it as a *TaskError that names the
// task and the function that called Fail, through which errors.Is and
// errors.As reach err. A nil err is a programming error: Fail panics.
// A search that stops at its first solution fails the job with a
// sentinel error of its own, and its caller tells the answer from a
// failure by errors.Is on Run's error (the firstSolution example).
//
//	n, err := strconv.Atoi(field)
//	if err != nil {
//		c.Fail(fmt.Errorf("line %d: %w", line, err))
//	}
//
// Fail unwinds by a panic that the runtime recovers, so that nothing of
// the task runs on; deferred calls run, as for any panic. A recover in
// the task's own code must re-panic what it does not know, as it should
// for any panic. Once the job has failed, the forms that start work
// (Fork, Spawn, Call, Both, the loops' next chunks) unwind their caller in
// the same way, so a recursion stops within the time of the leaves
// running then (see Register, "Which leaves run before the failure").
func (c *Ctx) Fail(err error) {
	if err == nil {
		panic("tsys: Ctx.Fail with a nil error; return normally to succeed")
	}
	x := c.executor()
	fn, task := failSite(1)
	if task == "" {
		task = x.TaskName() // a closure of the runtime's own, such as Do's root
	}
	x.FailTask(&TaskError{Task: task, Func: fn, Err: err})
}
