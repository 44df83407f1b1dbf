package sched

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
)

// TestTryRunDoesNotWaitForARunningRun: a task that calls TryRun on its
// own pool is told at once that the pool is busy (Run would wait for the
// run the task is part of, which cannot end); once the run is over,
// TryRun runs.
func TestTryRunDoesNotWaitForARunningRun(t *testing.T) {
	p := NewPool(1, inline.Default())
	var innerRan, innerTried bool
	root := newFrame(func(x *Ctx) {
		innerTried = true
		innerRan, _, _ = p.TryRun(context.Background(), newFrame(func(*Ctx) {}))
	})
	if _, err := p.Run(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	if !innerTried || innerRan {
		t.Fatalf("TryRun inside a run: tried %v, ran %v; want it refused", innerTried, innerRan)
	}
	ran := false
	ok, _, err := p.TryRun(context.Background(), newFrame(func(*Ctx) { ran = true }))
	if !ok || err != nil || !ran {
		t.Fatalf("TryRun on a free pool: %v, %v, root ran %v", ok, err, ran)
	}
}

// TestACancelledRunIsCanceledAndItsCause: the error of a run its caller
// cancelled with a cause is both context.Canceled and the cause, as Go
// programs test for.
func TestACancelledRunIsCanceledAndItsCause(t *testing.T) {
	mine := errors.New("mine")
	for _, cause := range []error{nil, mine} {
		ctx, cancel := context.WithCancelCause(context.Background())
		p := NewPool(1, inline.Default())
		root := newFrame(func(x *Ctx) {
			cancel(cause)
			select { // bounded: a regression fails instead of hanging
			case <-x.Context().Done():
			case <-time.After(30 * time.Second):
			}
		})
		_, err := p.Run(ctx, root)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cause %v: err = %v, not context.Canceled", cause, err)
		}
		if cause != nil && !errors.Is(err, cause) {
			t.Errorf("cause %v: err = %v, not the cause", cause, err)
		}
	}
}
