package sched

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tsys-go/tsys/internal/invariant"
)

// Context is the context of the run the executor serves: cancelled when
// the run fails (a task's error or panic, the caller's cancellation, a
// failure on another node), with that error as its cause, and when the
// run ends. Tasks that run long poll it; no task starts after it is done.
// Unlike the Ctx's other methods, it may be called from any goroutine, at
// any time, and is not checked: it reads what the executor's run set
// before any task could hold the Ctx, and never changes after.
func (c *Ctx) Context() context.Context { return c.x.runCtx }

// FailTask ends the run with err as its error, as a panic would, and
// unwinds the calling task without a result: nobody may read one. The
// first error of a run is the one it returns; an error that comes after
// the run has failed or ended is dropped, and so is the task's result.
func (c *Ctx) FailTask(err error) {
	c.Check()
	if err == nil {
		invariant.Throw("FailTask with a nil error")
	}
	c.x.pool.fail(err)
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

// inRunKey is the key under which a run's context answers Value: the
// contexts a run's tasks hand on are told apart by it (InRun).
type inRunKey struct{}

func (r runContext) Value(key any) any {
	if key == (inRunKey{}) {
		return true
	}
	return r.Context.Value(key)
}

// InRun reports whether ctx is a run's context (Ctx.Context), or one made
// from it: a run started with it starts from inside a task.
func InRun(ctx context.Context) bool { return ctx.Value(inRunKey{}) != nil }

// Cancelled is the error of a run whose caller's context ended before the
// run began: the error a run returns when its context ends while it runs.
// A context whose deadline passed before its timer said so ended by its
// deadline.
func Cancelled(ctx context.Context) error {
	why := ctx.Err()
	if why == nil {
		why = context.DeadlineExceeded
	}
	return cancelledBy(ctx, why)
}

func newRunContext(caller context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(caller))
	return runContext{Context: ctx, caller: caller}, cancel
}

// cancelled is the error of a run whose caller's context ended. It wraps
// both ctx.Err() and the cause, when they differ: a Go program asks
// errors.Is(err, context.Canceled) (or DeadlineExceeded) of any call that
// its context ended, and one that cancelled with a cause
// (context.WithCancelCause) asks for the cause the same way.
func cancelled(ctx context.Context) error { return cancelledBy(ctx, ctx.Err()) }

// cancelledBy is cancelled for a context that ended for why, which its
// Err may not say yet.
func cancelledBy(ctx context.Context, why error) error {
	cause := context.Cause(ctx)
	switch {
	case cause == nil:
		return fmt.Errorf("run cancelled: %w", why)
	case errors.Is(cause, why):
		// The cause says it already: it is ctx.Err() itself, or an
		// outer run's error that wraps it (a run inside a task).
		return fmt.Errorf("run cancelled: %w", cause)
	}
	return fmt.Errorf("run cancelled: %w (%w)", cause, why)
}

// TaskName names the code that holds c, for an error that says where it
// arose: the form of a closure body ("tsys.For") while no task frame runs
// inside the body, else the registered name of the task whose frame the
// executor runs ("" between tasks).
func (c *Ctx) TaskName() string {
	x := c.x
	switch {
	case c.form != "" && c.frame == x.cur:
		return c.form
	case x.cur == nil:
		return ""
	}
	return x.cur.kind.Name
}
