package sched

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
)

// hungerCount is a Remote that counts a pool's Hungry calls: one per round
// of a looking worker's fruitless search.
type hungerCount struct{ n atomic.Int64 }

func (h *hungerCount) Hungry(bool)    { h.n.Add(1) }
func (h *hungerCount) Pushed()        {}
func (h *hungerCount) Return(*Header) {}
func (h *hungerCount) Failed(error)   {}

// serving starts p serving with a Hungry counter, stopped when the test
// ends.
func serving(t *testing.T, p *Pool) *hungerCount {
	t.Helper()
	h := &hungerCount{}
	p.Port().SetRemote(h)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := p.Serve(context.Background(), stop); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
	})
	return h
}

// waitFor polls cond for up to 10 s, failing the test with what.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still not so after 10 s: %s", what)
		}
	}
}

// TestALoneWorkerParksWithoutSpinning: a pool's only worker, finding no
// work, parks after one round rather than spinning spinFor: only a task
// from outside the pool can come, and what brings it needs the core.
func TestALoneWorkerParksWithoutSpinning(t *testing.T) {
	p := NewPool(1, inline.Default())
	h := serving(t, p)
	waitFor(t, "the worker parks", func() bool { return p.crew.nIdle.Load() == 1 })
	if n := h.n.Load(); n != 1 {
		t.Fatalf("the lone worker searched %d rounds before parking, want 1: it spun", n)
	}
	// Woken by a task from outside, it runs it and parks again at once.
	var ran atomic.Bool
	p.Port().Inject(newFrame(func(*Ctx) { ran.Store(true) }))
	waitFor(t, "the injected task runs and the worker parks again", func() bool { return ran.Load() && p.crew.nIdle.Load() == 1 })
	if n := h.n.Load(); n != 2 {
		t.Fatalf("after one more task the worker searched %d rounds in all, want 2", n)
	}
}

// TestAWorkerSpinsWhileAnotherWorks: beside a worker at work, which may
// push a task at any moment, a worker that runs dry spins (it searches
// again) before it parks.
func TestAWorkerSpinsWhileAnotherWorks(t *testing.T) {
	p := NewPool(2, inline.Default())
	h := serving(t, p)
	release, started := make(chan struct{}), make(chan struct{})
	defer close(release)
	p.Port().Inject(newFrame(func(*Ctx) {
		close(started)
		<-release
	}))
	<-started
	waitFor(t, "the other worker parks", func() bool { return p.crew.nIdle.Load() == 1 })
	before := h.n.Load()
	var ran atomic.Bool
	p.Port().Inject(newFrame(func(*Ctx) { ran.Store(true) }))
	waitFor(t, "the injected task runs and its worker parks again", func() bool { return ran.Load() && p.crew.nIdle.Load() == 1 })
	if n := h.n.Load() - before; n < 2 {
		t.Fatalf("beside a worker at work, the worker that ran dry searched %d rounds before parking, want at least 2 (it spins)", n)
	}
}
