package sched

import (
	"context"
	"errors"
	"testing"
	"time"
	"unsafe"

	"github.com/tsys-go/tsys/inline"
)

// frame is a task of these tests: the Header and what the task does.
type frame struct {
	Header
	do func(x *Ctx)
}

var testKind = Kind{Name: "sched.test", Run: func(h *Header, x *Ctx) { (*frame)(unsafe.Pointer(h)).do(x) }}

func newFrame(do func(x *Ctx)) *Header {
	f := &frame{do: do}
	f.Init(&testKind)
	return &f.Header
}

// TestServeEndsWithoutFailing: a node that stops serving a job (its end
// came) is not failed by a task that, seeing its context done, fails with
// the context's cause: the run was over first.
func TestServeEndsWithoutFailing(t *testing.T) {
	p := NewPool(1, inline.Default())
	stop := make(chan struct{})
	running := make(chan struct{})
	p.Port().Inject(newFrame(func(x *Ctx) {
		close(running)
		<-x.Context().Done()
		x.FailTask(context.Cause(x.Context()))
	}))
	go func() {
		<-running
		close(stop)
	}()
	if _, err := p.Serve(context.Background(), stop); err != nil {
		t.Fatalf("Serve = %v, want nil: the run ended before the task failed", err)
	}
}

// TestServeFailsWithTheTasksError: a task that fails while its node
// serves ends the session with its error, and the context the other
// running task sees carries it as its cause.
func TestServeFailsWithTheTasksError(t *testing.T) {
	p := NewPool(2, inline.Default())
	boom := errors.New("boom")
	cause := make(chan error, 1)
	waiting := make(chan struct{})
	p.Port().Inject(newFrame(func(x *Ctx) {
		close(waiting)
		<-x.Context().Done()
		cause <- context.Cause(x.Context())
	}), newFrame(func(x *Ctx) {
		<-waiting
		x.FailTask(boom)
	}))
	if _, err := p.Serve(context.Background(), nil); !errors.Is(err, boom) {
		t.Fatalf("Serve = %v, want boom", err)
	}
	if c := <-cause; !errors.Is(c, boom) {
		t.Fatalf("the other task saw cause %v, want boom", c)
	}
}

// TestJoinForkedIsACancellationPoint: once the run has failed, a join of a
// forked task still in the joiner's deque does not run it.
func TestJoinForkedIsACancellationPoint(t *testing.T) {
	p := NewPool(1, inline.Never())
	ran := false
	root := newFrame(func(x *Ctx) {
		x.Push(newFrame(func(*Ctx) { ran = true }))
		forked := x.Fast.Spawned
		p.Port().Fail(errors.New("failed elsewhere"))
		x.JoinForked(forked)
	})
	_, err := p.Run(context.Background(), root)
	if err == nil || ran {
		t.Fatalf("Run = %v, the forked task ran: %v; want the failure, and the task not run", err, ran)
	}
}

// TestFailAfterTheRunIsDropped: a failure reported once a run is over
// belongs to no run: the next run starts clean.
func TestFailAfterTheRunIsDropped(t *testing.T) {
	p := NewPool(1, inline.Default())
	if _, err := p.Run(context.Background(), newFrame(func(*Ctx) {})); err != nil {
		t.Fatal(err)
	}
	p.Port().Fail(errors.New("late"))
	if p.Failed() {
		t.Error("a failure after the run counted")
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(context.Background(), newFrame(func(*Ctx) {}))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the next run failed: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the next run did not end")
	}
}

// TestFailBeforeAnyRunIsDropped: a pool that has not run yet (a job's
// pool on a serving node, before its serving run starts) is told the
// job failed elsewhere: nothing breaks, and its first run starts clean.
func TestFailBeforeAnyRunIsDropped(t *testing.T) {
	p := NewPool(1, inline.Default())
	p.Port().Fail(errors.New("the job failed on another node"))
	if p.Failed() {
		t.Error("a failure before any run counted")
	}
	if _, err := p.Run(context.Background(), newFrame(func(*Ctx) {})); err != nil {
		t.Errorf("the first run failed: %v", err)
	}
}
