package tsys_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/tsys"
)

// A run whose context is done before its result is ready returns the
// context's error, whether it runs alone, beside a busy run, or among
// many callers: the result of a root that finished after the deadline is
// never returned as a success, since its caller gave up on it.

var deadlineFib *tsys.Task[int, int]

// deadlineRoot runs fib(n) and reports, in its result's sign, whether it
// finished after the deadline its caller set: the run must not succeed
// with such a result.
var deadlineRoot *tsys.Task[deadlineArg, deadlineResult]

type deadlineArg struct {
	N        int
	Deadline time.Time
}

type deadlineResult struct {
	Fib  int
	Late bool // the root's body ended after the deadline
}

func init() {
	deadlineFib = tsys.Register("test.deadline.fib", func(c *tsys.Ctx, n int) int {
		if n < 2 {
			return n
		}
		a := deadlineFib.Fork(c, n-1)
		b := deadlineFib.Call(c, n-2)
		return a.Join(c) + b
	})
	deadlineRoot = tsys.Register("test.deadline.root", func(c *tsys.Ctx, a deadlineArg) deadlineResult {
		v := deadlineFib.Call(c, a.N)
		return deadlineResult{Fib: v, Late: time.Now().After(a.Deadline)}
	})
}

// runUnderDeadline runs fib(n) on rt with a deadline d from now and
// fails the test if the run succeeded with a result that was ready only
// after the deadline, or failed with another error. It returns how late
// after the deadline a failed run returned (0 for a success).
func runUnderDeadline(t *testing.T, rt *tsys.Runtime, n int, d time.Duration) (late time.Duration, ok bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	r, _, err := tsys.Run(ctx, rt, deadlineRoot, deadlineArg{N: n, Deadline: deadline})
	returned := time.Now()
	switch {
	case err == nil && r.Late:
		t.Errorf("fib(%d) under a %v deadline succeeded with a result ready %v after the deadline", n, d, returned.Sub(deadline))
	case err == nil:
		return 0, true
	case !errors.Is(err, context.DeadlineExceeded):
		t.Errorf("fib(%d) under a %v deadline: %v; want context.DeadlineExceeded", n, d, err)
	}
	return max(0, returned.Sub(deadline)), false
}

// TestDeadlineHoldsAlone: fib(32) under a 1 ms deadline, alone.
func TestDeadlineHoldsAlone(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2))
	for range 20 {
		runUnderDeadline(t, rt, 32, time.Millisecond)
	}
}

// TestDeadlineHoldsBesideABusyRun: the same while another run holds the
// runtime's workers.
func TestDeadlineHoldsBesideABusyRun(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2))
	stop := make(chan struct{})
	busy := make(chan struct{})
	go func() {
		defer close(busy)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, _, err := tsys.Run(context.Background(), rt, deadlineFib, 27); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 20 {
		runUnderDeadline(t, rt, 32, time.Millisecond)
	}
	close(stop)
	<-busy
}

// TestDeadlineHoldsAmongManyCallers: 16 callers at once, each a run
// under a deadline that some meet and some do not.
func TestDeadlineHoldsAmongManyCallers(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2))
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				runUnderDeadline(t, rt, 20+i%10, time.Millisecond)
			}
		}()
	}
	wg.Wait()
}

// TestCancelledByItsOwnTaskIsCancelled: a root that cancels its caller's
// context and then finishes its work: the run returns Canceled, never
// the result, on every worker count, alone or on a spare pool.
func TestCancelledByItsOwnTaskIsCancelled(t *testing.T) {
	checkNoLeak(t)
	for _, w := range []int{1, 2} {
		rt := tsys.New(tsys.Workers(w))
		for range 50 {
			ctx, cancel := context.WithCancel(context.Background())
			v, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
				cancel()
				return 42
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("workers=%d: a run cancelled by its root returned %d, %v; want context.Canceled", w, v, err)
			}
		}
	}
}

// TestManyCallersLeaveNothing: 16 goroutines make 100,000 small jobs on
// one runtime, as a server's requests do: every answer is right, and
// neither the goroutines nor the heap grow with the requests (the heap
// measured after a collection at a tenth of them and at the end).
func TestManyCallersLeaveNothing(t *testing.T) {
	total := 100_000
	if testing.Short() {
		total = 16_000
	}
	const callers = 16
	rt := tsys.New(tsys.Workers(2))
	request := func() {
		v, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int {
			a, b := tsys.Pair(c, func(c *tsys.Ctx) int { return deadlineFib.Call(c, 12) },
				func(c *tsys.Ctx) int {
					return tsys.Fold(c, 0, 1000, func() int { return 0 },
						func(_ *tsys.Ctx, lo, hi, s int) int { return s + hi - lo }, func(a, b int) int { return a + b })
				})
			return a + b
		})
		if err != nil || v != 144+1000 {
			t.Errorf("request = %d, %v; want %d", v, err, 144+1000)
		}
	}
	serve := func(n int) {
		var wg sync.WaitGroup
		for range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range n / callers {
					request()
				}
			}()
		}
		wg.Wait()
	}
	serve(total / 10) // warm: spare pools, frames, stacks
	goroutines, heap := runtime.NumGoroutine(), liveHeap()
	serve(total - total/10)
	if t.Failed() {
		return
	}
	// A goroutine that is ending (an AfterFunc of a context that ended)
	// may still count for a moment.
	for end := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > goroutines && time.Now().Before(end); {
		time.Sleep(5 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > goroutines {
		t.Errorf("goroutines grew from %d to %d over %d requests", goroutines, g, total)
	}
	if h := liveHeap(); h > heap+heap/2+1<<20 {
		t.Errorf("the live heap grew from %d to %d bytes over %d requests", heap, h, total)
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestARunWaitingItsTurnEndsWithItsContext: while the runs in progress
// hold every turn, a run that begins waits, off the CPU, and ends at once
// with its context; a run from inside a task does not wait for a turn
// (its caller may hold the one it would wait for).
func TestARunWaitingItsTurnEndsWithItsContext(t *testing.T) {
	checkNoLeak(t)
	// As many workers as CPUs: every run beside the first runs solo, and
	// takes a turn, on any machine.
	rt := tsys.New(tsys.Workers(runtime.GOMAXPROCS(0)))
	release := make(chan struct{})
	var started, held sync.WaitGroup
	hold := func(inner func(c *tsys.Ctx)) {
		started.Add(1)
		held.Add(1)
		go func() {
			defer held.Done()
			_, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int {
				started.Done()
				if inner != nil {
					inner(c)
				}
				<-release
				return 0
			})
			if err != nil {
				t.Error(err)
			}
		}()
		started.Wait()
	}
	// The first run takes the pool; then every turn is taken, the last
	// by a run that starts a run of its own from inside its task.
	hold(nil)
	nested := make(chan error, 1)
	for i := range runtime.GOMAXPROCS(0) {
		if i == 0 {
			hold(func(c *tsys.Ctx) {
				_, _, err := tsys.Do(c.Context(), rt, func(*tsys.Ctx) int { return 1 })
				nested <- err
			})
			continue
		}
		hold(nil)
	}
	if err := <-nested; err != nil {
		t.Errorf("a run from inside a task, while every turn is taken: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancel()
	ran := false
	_, _, err := tsys.Do(ctx, rt, func(*tsys.Ctx) int { ran = true; return 1 })
	if !errors.Is(err, context.DeadlineExceeded) || ran {
		t.Errorf("a run that waited its turn past its deadline: ran %v, %v; want DeadlineExceeded without running", ran, err)
	}
	close(release)
	held.Wait()
}
