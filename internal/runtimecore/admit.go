package runtimecore

import (
	"context"
	"time"

	"github.com/tsys-go/tsys/internal/sched"
)

// Admission. Solo runs beyond the CPUs would only take turns on them,
// each one's goroutine waiting its turn for as long as the Go scheduler
// gives the others (10 ms slices): a request whose deadline passes while
// it waits can say so only when it runs again, and every request's time
// spreads. So at most GOMAXPROCS solo runs run at once and the others
// wait their turn in order, off the CPU, ending at once if their context
// does (admit). A run from inside a task (its context is a task's,
// Ctx.Context) is admitted at once, since the slot it would wait for may
// be its own caller's; so, after admitWait, is any run, for the same
// reason when a task passes a context of its own.

// admitWait bounds a solo run's wait for its turn.
const admitWait = 10 * time.Millisecond

// admit waits for the run's turn to run solo and returns what gives it
// back, or the run's error if its context ends first.
func (rt *Runtime) admit(ctx context.Context) (release func(), err error) {
	if sched.InRun(ctx) {
		return func() {}, nil
	}
	select {
	case rt.turns <- struct{}{}:
		return rt.giveBack, nil
	default:
	}
	t := time.NewTimer(admitWait)
	defer t.Stop()
	select {
	case rt.turns <- struct{}{}:
		return rt.giveBack, nil
	case <-ctx.Done():
		return nil, sched.Cancelled(ctx)
	case <-t.C:
		if ContextEnded(ctx) {
			return nil, sched.Cancelled(ctx)
		}
		return func() {}, nil
	}
}

func (rt *Runtime) giveBack() { <-rt.turns }
