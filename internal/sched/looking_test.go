package sched

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/tsys-go/tsys/inline"
)

// fewLookers is a pool of n workers of which at most one looks for work at
// once, the tightest bound parkAside allows, whatever the machine's cores.
func fewLookers(n int) *Pool {
	p := NewPool(n, inline.Never())
	p.crew.maxLooking, p.crew.capLooking = 1, true
	return p
}

// boundedRun runs root on p, failing the test rather than hanging if the
// idle protocol loses a task: the run's context ends it.
func boundedRun(t *testing.T, p *Pool, root *Header) Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := p.Run(ctx, root)
	if err != nil {
		t.Fatalf("run on %d workers, 1 looking at a time: %v (a task was left queued while every worker slept)", p.Workers(), err)
	}
	return st
}

// tree forks a binary tree of tasks of the given depth and joins every
// one, counting the tasks run.
func tree(depth int, ran *atomic.Int64) *Header {
	return newFrame(func(x *Ctx) {
		ran.Add(1)
		if depth == 0 {
			return
		}
		x.Push(tree(depth-1, ran))
		l := x.Fast.Spawned
		x.Push(tree(depth-1, ran))
		x.JoinForked(x.Fast.Spawned)
		x.JoinForked(l)
	})
}

// TestFewLookersLoseNoTask: with many more workers than may look for work
// at once, every task of a tree is run exactly once and every run ends.
func TestFewLookersLoseNoTask(t *testing.T) {
	const depth = 10
	want := int64(1)<<(depth+1) - 1
	for _, workers := range []int{3, 17, 64} {
		p := fewLookers(workers)
		for range 10 {
			var ran atomic.Int64
			st := boundedRun(t, p, tree(depth, &ran))
			if ran.Load() != want || st.TasksRun != want {
				t.Fatalf("%d workers: %d tasks ran (counted %d), want %d", workers, ran.Load(), st.TasksRun, want)
			}
		}
	}
}

// TestFewLookersWakeEveryWorkerForQueuedWork: tasks that can only finish
// together (each waits for all the others to start) finish only if every
// worker is woken while one of them is still queued: a worker parked aside
// that slept through queued work would leave the rest waiting. Each wait
// is bounded, so a regression fails rather than hangs.
func TestFewLookersWakeEveryWorkerForQueuedWork(t *testing.T) {
	for _, workers := range []int{3, 17, 64} {
		p := fewLookers(workers)
		for round := range 10 {
			var stuck atomic.Bool
			boundedRun(t, p, newFrame(func(x *Ctx) {
				// Every other worker idle first, so that the pushes below
				// are public at once (a private task would wait for this
				// one's next push or pop, which never comes: it blocks).
				for x.View().Hungry() < workers-1 && !stuck.Load() {
					runtime.Gosched()
				}
				n := workers - 1
				var started atomic.Int64
				all := make(chan struct{})
				forked := make([]unsafe.Pointer, n)
				for i := range forked {
					x.Push(newFrame(func(*Ctx) {
						if started.Add(1) == int64(n) {
							close(all)
						}
						select {
						case <-all:
						case <-time.After(30 * time.Second):
							stuck.Store(true)
						}
					}))
					forked[i] = x.Fast.Spawned
				}
				select {
				case <-all:
				case <-time.After(30 * time.Second):
					stuck.Store(true)
				}
				for i := n - 1; i >= 0; i-- {
					x.JoinForked(forked[i])
				}
			}))
			if stuck.Load() {
				t.Fatalf("%d workers, round %d: a task stayed queued while the workers that could take it slept", workers, round)
			}
		}
	}
}

// parkedAside starts x parking aside (it found no looking slot) and
// returns a channel closed when it is back, counted as looking.
func parkedAside(x *Executor) <-chan struct{} {
	back := make(chan struct{})
	go func() {
		x.pool.crew.parkAside(x)
		close(back)
	}()
	return back
}

// waitParked waits, bounded, until n executors are parked.
func waitParked(t *testing.T, p *Pool, n int32) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); p.crew.nIdle.Load() < n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d executors parked, want %d", p.crew.nIdle.Load(), n)
		}
		runtime.Gosched()
	}
}

// mustReturn fails unless back is closed within a bound that only a lost
// wake-up exceeds.
func mustReturn(t *testing.T, back <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-back:
	case <-time.After(30 * time.Second):
		t.Fatal(what)
	}
}

// idleSteps is a pool between its executors' steps: worker 2's deque holds
// a public task, and executors a and b hold workers 0 and 1.
func idleSteps() (p *Pool, a, b *Executor) {
	p = fewLookers(3)
	p.ending.Store(false) // as in a run
	h := newFrame(func(*Ctx) {})
	h.index, _ = p.workers[2].dq.Push(h)
	p.workers[2].dq.Release()
	a = &Executor{w: p.workers[0], pool: p, wake: make(chan *Worker, 1)}
	b = &Executor{w: p.workers[1], pool: p, wake: make(chan *Worker, 1)}
	return p, a, b
}

// TestParkAsideScansWhenTheLookerLeft: b found the looking slot taken, but
// by the time it parks the looker has gone: b must see the queued task
// itself and come back rather than sleep beside it.
func TestParkAsideScansWhenTheLookerLeft(t *testing.T) {
	p, _, b := idleSteps()
	if !p.crew.startLooking() {
		t.Fatal("the first looker found no slot")
	}
	if p.crew.startLooking() {
		t.Fatal("a second looker found a slot past maxLooking 1")
	}
	p.crew.stopLooking() // the looker leaves between b's try and b's park
	mustReturn(t, parkedAside(b), "an executor parked aside beside a queued task, nobody looking")
	if n := p.crew.nSpinning.Load(); n != 1 {
		t.Errorf("%d looking after b came back, want b alone", n)
	}
}

// TestLastLookerToLeaveWakesOneParkedAside: b parked aside while a looked,
// relying on a; a leaves off looking without a task (a waiter wants its
// worker): b must be woken to look in its stead, the task still queued.
func TestLastLookerToLeaveWakesOneParkedAside(t *testing.T) {
	p, _, b := idleSteps()
	if !p.crew.startLooking() {
		t.Fatal("the first looker found no slot")
	}
	back := parkedAside(b)
	waitParked(t, p, 1)
	p.crew.stopLooking()
	mustReturn(t, back, "the last looker left without a task and nobody woke the executor parked aside")
}
