package tsys

import (
	"context"
	"unsafe"

	"github.com/tsys-go/tsys/internal/sched"
)

// Ctx is the context of a running task: pass it to Fork, Spawn, Call,
// Join and Get, and to the closure forms (Both, Pair, For, Fold). It
// belongs to the code it was given to, on the goroutine running it, while
// it runs: a task gets one, and so does each closure body a closure form
// runs, whose Ctx the body must use in place of one its closure captured.
// Used anywhere else (a captured Ctx inside a body, a Ctx kept after its
// task or body returned or its job ended, a Ctx handed to a goroutine of
// the program's own, a nil Ctx), it panics at once, saying what to use
// instead: inside a job that is the job's *TaskPanic; on a goroutine of
// the program's own it ends the process, as Go's "concurrent map writes"
// does. Context is the exception: it may be called anywhere, any time.
//
// What is checked, and where. The closure forms, Join, Get, Call and
// every spawn that asks the scheduler check the Ctx before they touch
// anything. Fork, Spawn and AllowCCall inline a decrement of the Ctx's
// credit into the task code and check nothing there, so that a fork
// costs a decrement and a call: a nil Ctx faults in them (inside a job,
// the TaskPanic says it was nil); a Ctx that is not active has no credit,
// so its first fork goes to the check; and a goroutine of the program's
// own that uses an active Ctx runs its forks as plain calls, on credit,
// until its first one that asks, where the check ends the process. Those
// plain calls touch no deque and no frame, so nothing is corrupted
// before; a goroutine whose forks all ran on credit (a few microseconds
// of work) got right answers and goes unseen.
//
// A Ctx has no field a program can reach, and is not a value to copy
// (go vet says so): it is the scheduler's, seen through this package's
// type.
type Ctx struct {
	_ noCopy
	_ [fastAt]byte
	// fast is the scheduler's sched.Ctx.Fast, in place: Fork, Join and
	// AllowCCall, inlined into task code, read and write it as one field
	// selection each, as they would the scheduler's own field.
	fast sched.FastPath
	_    [ctxSize - fastAt - unsafe.Sizeof(sched.FastPath{})]byte
}

// A *Ctx points to the scheduler's Ctx, read through this package's
// struct: of the same size and alignment, with the fast path at the same
// offset and bytes for the rest (ctxOf and Ctx.sched convert). The
// declarations below fail to compile when the two layouts part. Every Ctx
// a task sees is one the scheduler allocated, so the collector scans it
// as the scheduler's type.
//
// The other ways cost more. A defined type over the scheduler's (type Ctx
// sched.Ctx) showed its exported field Fast to a program, which could
// write it. A struct holding a sched.Ctx costs each selection of the fast
// path one more node of Go's inlining budget (c.x.Fast.Credit), three in
// Fork, which is at the budget (80) and then stops being inlined. An
// alias is not inlined across packages (golang/go#74783).
const (
	fastAt  = unsafe.Offsetof(sched.Ctx{}.Fast)
	ctxSize = unsafe.Sizeof(sched.Ctx{})
)

var (
	_ [unsafe.Sizeof(Ctx{}) - ctxSize]struct{}
	_ [ctxSize - unsafe.Sizeof(Ctx{})]struct{}
	_ [unsafe.Offsetof(Ctx{}.fast) - fastAt]struct{}
	_ [fastAt - unsafe.Offsetof(Ctx{}.fast)]struct{}
	_ [unsafe.Alignof(Ctx{}) - unsafe.Alignof(sched.Ctx{})]struct{}
	_ [unsafe.Alignof(sched.Ctx{}) - unsafe.Alignof(Ctx{})]struct{}
)

// noCopy makes go vet report a Ctx copied by value (copylocks).
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// ctxOf is the scheduler's Ctx x as a Ctx of this package.
func ctxOf(x *sched.Ctx) *Ctx { return (*Ctx)(unsafe.Pointer(x)) }

// sched is c as the scheduler's type.
func (c *Ctx) sched() *sched.Ctx { return (*sched.Ctx)(unsafe.Pointer(c)) }

// Context is the job's context: done when the job fails (a task's error
// or panic, the caller's cancellation, a failure on another node), with
// that error as its cause (context.Cause), and when the job ends. Unlike
// the Ctx, it may be handed to other goroutines and to any API that takes
// a context, such as an HTTP request the task makes; and Context itself
// may be called on any goroutine, at any time, even after the job.
func (c *Ctx) Context() context.Context { return c.sched().Context() }

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
	if checkForks {
		c.sched().Check() // before the decrement, which would race
	}
	// Written so as to stay within Go's inlining budget, with one call
	// into the scheduler on a spent credit: AskSpawn, which asks the
	// policy without a call of its own (TestAllowCCallInlinesIntoTaskCode).
	if c.fast.Credit--; int(c.fast.Credit) < 0 {
		_, ccall = (*sched.Ctx)(unsafe.Pointer(c)).AskSpawn(nil)
		return ccall
	}
	return true
}

// stopIfEnded unwinds the calling task once its job has failed, been
// cancelled or ended: a cancellation point where the program's code runs
// next without a spawn that would ask (a Join's second closure, a loop's
// next chunk, Task.Call). One atomic load while the job runs. A Ctx used
// where it does not belong reads "ending" here too. The panic value is
// the Ctx, which the scheduler turns into the end of the task or the
// mistake's name (sched.Ctx.Error); a call here would cost Call its
// inlining.
func (c *Ctx) stopIfEnded() {
	if c.fast.Ending.Load() != 0 {
		panic((*sched.Ctx)(unsafe.Pointer(c)))
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
	x := c.sched()
	x.Check()
	fn, task := failSite(1)
	if task == "" {
		task = x.TaskName() // a closure body's form, or the task frame's name
	}
	x.FailTask(&TaskError{Task: task, Func: fn, Err: err})
}
