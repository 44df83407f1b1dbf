package sched

import (
	"context"
	"time"

	"github.com/tsys-go/tsys/internal/invariant"
)

// Context is the context of the run the executor serves: cancelled when
// the run fails (a task's error or panic, the caller's cancellation, a
// failure on another node), with that error as its cause, and when the
// run ends. Tasks that run long poll it; no task starts after it is done.
// Any goroutine may use it.
func (x *Executor) Context() context.Context { return x.pool.runCtx }

// FailTask ends the run with err as its error, as a panic would, and
// unwinds the calling task without a result: nobody may read one. The
// first error of a run is the one it returns; an error that comes after
// the run has failed or ended is dropped, and so is the task's result.
func (x *Executor) FailTask(err error) {
	if err == nil {
		invariant.Throw("FailTask with a nil error")
	}
	x.pool.fail(err)
	panic(abortRun)
}

// runContext is a run's context: its values and deadline are the
// caller's, but it is done only when the run fails or ends (Pool.fail,
// the end of session), never straight from the caller's context. The
// caller's cancellation reaches it through fail, which first stops any
// task from starting: so a task that sees Done knows that no sibling
// will begin after it, whichever goroutine the machine runs first.
type runContext struct {
	context.Context // the caller's, without its cancellation
	caller          context.Context
}

func (r runContext) Deadline() (time.Time, bool) { return r.caller.Deadline() }

func newRunContext(caller context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(caller))
	return runContext{Context: ctx, caller: caller}, cancel
}
