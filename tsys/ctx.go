package tsys

import "github.com/tsys-go/tsys/sched"

// Ctx is the context of a running task: pass it to Spawn, Call and Get.
// It belongs to the goroutine running the task; never keep it after the task
// returns or hand it to another goroutine.
//
// Ctx is the scheduler's executor under a type of this package, not an
// alias of it: Go does not make inline bodies available through an alias to
// a package that imports only the alias's package (golang/go#74783), so
// AllowCCall would stay a call in every task package.
type Ctx sched.Executor

func (c *Ctx) executor() *sched.Executor { return (*sched.Executor)(c) }

// AllowCCall is NewTS's allowCCall for task code: may the spawn about to be
// made run as a direct call? A yes counts as an inlined spawn. It lets a
// task write Cilk's "fast clone" by hand:
//
//	if c.AllowCCall() {
//		return fib(c, n-1) + fib(c, n-2) // a C-call: plain recursion
//	}
//	a := Fib.Spawn(c, n-1) // a T-call
//
// Spawn asks the same question, but from inside itself, and Go cannot
// inline Spawn (it is generic and over the inliner's budget), so an inlined
// Spawn still costs a call and an indirect call. AllowCCall is inlined into
// the task function: on the finest tasks (fib, n-queens) that is the
// difference between 1.8x and 1.1x the serial time on one worker
// (bench/README.md).
//
// The answer is cached for a few microseconds as credit, as Spawn's is;
// after a no, the Spawn that follows asks the policy again.
func (c *Ctx) AllowCCall() bool {
	c.Fast.Credit--
	return c.Fast.Credit >= 0 || c.executor().AskCCall()
}
