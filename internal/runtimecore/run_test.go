package runtimecore

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/sched"
)

// frame is a root task that runs do.
type frame struct {
	sched.Header
	do func()
}

var testKind = sched.Kind{Name: "runtimecore.test", Run: func(h *sched.Header, _ *sched.Ctx) { (*frame)(unsafe.Pointer(h)).do() }}

func newFrame(do func()) *sched.Header {
	f := &frame{do: do}
	f.Init(&testKind)
	return &f.Header
}

// bound is far beyond what a run of nothing takes on a loaded machine:
// a regression fails rather than hangs.
const bound = time.Minute

// TestRunBesideAnotherTakesASparePool: a run that begins while another
// holds the main pool does not wait for it (it may be its caller's own)
// but runs on a spare pool, which Last then names; the main pool is the
// last once the first run ends.
func TestRunBesideAnotherTakesASparePool(t *testing.T) {
	rt := New(Config{Workers: 1, Inline: inline.Default()})
	started, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		_, err := rt.Run(context.Background(), newFrame(func() { close(started); <-release }))
		first <- err
	}()
	select {
	case <-started:
	case <-time.After(bound):
		t.Fatal("the first run did not start")
	}
	second := make(chan error, 1)
	go func() {
		_, err := rt.Run(context.Background(), newFrame(func() {}))
		second <- err
	}()
	select {
	case err := <-second:
		if err != nil {
			t.Fatalf("the second run: %v", err)
		}
	case <-time.After(bound):
		close(release)
		t.Fatal("the second run waited for the first")
	}
	if rt.Last() == rt.Main() {
		t.Error("the second run ended on the main pool, which the first held")
	}
	close(release)
	select {
	case err := <-first:
		if err != nil {
			t.Fatalf("the first run: %v", err)
		}
	case <-time.After(bound):
		t.Fatal("the first run did not end once released")
	}
	if rt.Last() != rt.Main() {
		t.Error("the first run ended on a pool other than the main one")
	}
}
