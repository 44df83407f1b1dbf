package tsys_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// checkNoLeak fails if goroutines started by the test outlive it: a run
// must leave nothing running behind.
func checkNoLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines leaked:\n%s", n-before, buf[:runtime.Stack(buf, true)])
		}
	})
}

var (
	panicky  *tsys.Task[int, int]
	sleeper  *tsys.Task[int, int]
	consumer *tsys.Task[tsys.Future[int], int]
	producer *tsys.Task[int, int]
	sharer   *tsys.Task[int, int]
	idle     *tsys.Task[time.Duration, int]
)

func init() {
	idle = tsys.Register("test.idle", func(c *tsys.Ctx, d time.Duration) int {
		time.Sleep(d)
		return 0
	})
	panicky = tsys.Register("test.panicky", func(c *tsys.Ctx, n int) int {
		if n == 0 {
			panic("boom at the leaf")
		}
		a := panicky.Spawn(c, n-1)
		b := panicky.Call(c, n-1)
		return a.Get(c) + b
	})
	sleeper = tsys.Register("test.sleeper", func(c *tsys.Ctx, n int) int {
		if n == 0 {
			time.Sleep(time.Millisecond)
			return 1
		}
		a := sleeper.Spawn(c, n-1)
		b := sleeper.Call(c, n-1)
		return a.Get(c) + b
	})
	// A future read by a task other than its creator, after the creator
	// has returned.
	producer = tsys.Register("test.producer", func(c *tsys.Ctx, n int) int {
		time.Sleep(time.Duration(n) * time.Microsecond)
		return n * n
	})
	consumer = tsys.Register("test.consumer", func(c *tsys.Ctx, f tsys.Future[int]) int {
		return f.Get(c) + 1
	})
	sharer = tsys.Register("test.sharer", func(c *tsys.Ctx, n int) int {
		total := 0
		var outs []tsys.Future[int]
		for i := 1; i <= n; i++ {
			p := producer.Spawn(c, i)
			// Two readers of the same future, neither of them its creator.
			outs = append(outs, consumer.Spawn(c, p), consumer.Spawn(c, p))
		}
		for _, o := range outs {
			total += o.Get(c)
		}
		return total
	})
}

func TestPanicBecomesErrorAndRuntimeStaysUsable(t *testing.T) {
	checkNoLeak(t)
	for _, w := range []int{1, 2, 4} {
		rt := tsys.New(tsys.Workers(w), tsys.Inline(inline.Never()))
		_, _, err := tsys.Run(context.Background(), rt, panicky, 6)
		var tp *tsys.TaskPanic
		if !errors.As(err, &tp) {
			t.Fatalf("workers=%d: err = %v, want a *TaskPanic", w, err)
		}
		if tp.Task != "test.panicky" || tp.Value != "boom at the leaf" || !strings.Contains(string(tp.Stack), "runtime_test.go") {
			t.Errorf("workers=%d: panic report %q / %v lacks the task, value or stack", w, tp.Task, tp.Value)
		}
		if !strings.Contains(err.Error(), `task "test.panicky" panicked: boom at the leaf`) {
			t.Errorf("error text %q does not name the task and the value", err)
		}
		// The same runtime runs the next job normally.
		got, _, err := tsys.Run(context.Background(), rt, fib.Task, 20)
		if err != nil || got != fib.Serial(20) {
			t.Fatalf("workers=%d: run after a panic: %d, %v", w, got, err)
		}
	}
}

func TestCancellationStopsARun(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	// 2^20 leaves of 1 ms: minutes of work if not stopped.
	_, _, err := tsys.Run(ctx, rt, sleeper, 20)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want one wrapping context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	got, _, err := tsys.Run(context.Background(), rt, sleeper, 3)
	if err != nil || got != 8 {
		t.Fatalf("run after cancellation: %d, %v", got, err)
	}
}

func TestFuturesSharedBetweenTasks(t *testing.T) {
	checkNoLeak(t)
	want := 0
	for i := 1; i <= 40; i++ {
		want += 2 * (i*i + 1)
	}
	for _, w := range []int{1, 2, 4} {
		for _, pol := range []inline.Policy{inline.Never(), inline.Default(), inline.Everything()} {
			rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
			got, _, err := tsys.Run(context.Background(), rt, sharer, 40)
			if err != nil || got != want {
				t.Fatalf("workers=%d inline=%s: %d, %v; want %d", w, pol, got, err, want)
			}
		}
	}
}

// TestWaitsDoNotIdleWorkers: with two workers and tasks that block in Get
// on stolen work, blocked waits happen and the result is still right.
func TestWaitsDoNotIdleWorkers(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	got, st, err := tsys.Run(context.Background(), rt, sleeper, 8)
	if err != nil || got != 256 {
		t.Fatalf("got %d, %v", got, err)
	}
	if st.LocalSteals == 0 {
		t.Errorf("two workers never stole: %+v", st)
	}
	// A spawn at each of the 255 inner nodes, plus the root.
	if st.TasksRun != 256 {
		t.Errorf("tasks run = %d, want 256 (every spawn a task)", st.TasksRun)
	}
}

func TestStatsAddUp(t *testing.T) {
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.LoadK(2)))
	_, st, err := tsys.Run(context.Background(), rt, fib.Task, 25)
	if err != nil {
		t.Fatal(err)
	}
	// Every spawn is inlined or becomes a task that runs once; the root
	// runs too.
	// fib(25) spawns at each call with n >= 2: fib(26)-1 of them.
	if st.Spawns != 121392 || st.Spawns-st.Inlined+1 != st.TasksRun {
		t.Errorf("spawns %d, inlined %d, tasks run %d: do not add up", st.Spawns, st.Inlined, st.TasksRun)
	}
	var sum tsys.Stats
	for _, w := range tsys.WorkerStats(rt) {
		sum = tsys.AddStats(sum, w)
	}
	if sum != st {
		t.Errorf("per-worker stats %+v do not sum to %+v", sum, st)
	}
}

func TestIdleRuntimeBurnsNoCPU(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2))
	// One task sleeps; the other worker has nothing to do and must park.
	start := cpuTime()
	if _, _, err := tsys.Run(context.Background(), rt, idle, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if used := cpuTime() - start; used > 150*time.Millisecond {
		t.Errorf("an idle worker used %v of CPU in 300 ms", used)
	}
}

// TestIdleAndBusyTime: one worker of two sleeps in a task for 300 ms; the
// other has nothing to do. The idle worker's time shows as idle, the
// sleeper's as busy, and the two add up to the run's span.
func TestIdleAndBusyTime(t *testing.T) {
	rt := tsys.New(tsys.Workers(2))
	const sleep = 300 * time.Millisecond
	start := time.Now()
	_, st, err := tsys.Run(context.Background(), rt, idle, sleep)
	wall := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	idleTime := time.Duration(st.IdleNanos)
	busy := tsys.Pool(rt).Port().BusyTime(time.Now())
	if idleTime < sleep*9/10 || idleTime > 2*wall {
		t.Errorf("idle %v in a run of %v where one worker of two had nothing to do", idleTime, wall)
	}
	if busy < sleep*9/10 || busy > 2*wall-idleTime+time.Millisecond {
		t.Errorf("busy %v, idle %v in a run of %v with a task of %v", busy, idleTime, wall, sleep)
	}
	if later := tsys.Pool(rt).Port().BusyTime(time.Now().Add(time.Hour)); later != busy {
		t.Errorf("busy time moved between runs: %v then %v", busy, later)
	}
	// Each worker's busy and idle time make up the run's span, and the
	// counters agree with the pool's busy time.
	for i, w := range tsys.WorkerStats(rt) {
		if span := time.Duration(w.BusyNanos + w.IdleNanos); span < sleep || span > wall+time.Millisecond {
			t.Errorf("worker %d: busy %v + idle %v = %v, not the run's span %v", i, time.Duration(w.BusyNanos), time.Duration(w.IdleNanos), span, wall)
		}
	}
	if d := time.Duration(st.BusyNanos) - busy; d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("busy_ns %v, pool's busy time %v", time.Duration(st.BusyNanos), busy)
	}
}

// TestStolenFromCountsThefts: every local steal is suffered by some
// worker's deque.
func TestStolenFromCountsThefts(t *testing.T) {
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	if _, _, err := tsys.Run(context.Background(), rt, sleeper, 8); err != nil {
		t.Fatal(err)
	}
	var steals, suffered int64
	for _, w := range tsys.WorkerStats(rt) {
		steals += w.LocalSteals
		suffered += w.StolenFrom
	}
	if steals == 0 || suffered != steals {
		t.Errorf("local steals %d, stolen from deques %d", steals, suffered)
	}
}

var fanout *tsys.Task[[2]int, int]

func init() {
	// A tree whose fan-out varies with the node, like a binomial UTS tree:
	// many Gets find their task stolen and must block.
	fanout = tsys.Register("test.fanout", func(c *tsys.Ctx, a [2]int) int {
		depth, seed := a[0], a[1]
		if depth == 0 {
			x := seed
			for i := 0; i < seed%64*20; i++ { // uneven leaves: completions land at any time
				x = x*1103515245 + 12345
			}
			runtime.KeepAlive(x) // the loop is the leaf's work
			return 1
		}
		n := seed%5 + 1
		var fs [5]tsys.Future[int]
		for i := 0; i < n; i++ {
			fs[i] = fanout.Spawn(c, [2]int{depth - 1, seed*31 + i*7 + 3})
		}
		total := 1
		for i := 0; i < n; i++ { // oldest first: the ones thieves took
			total += fs[i].Get(c)
		}
		return total
	})
}

// TestManyBlockingWaits stresses the hand-off of workers between blocked
// and resumed executors: a lost worker shows as a hang, a doubled one as a
// race or a wrong count.
func TestManyBlockingWaits(t *testing.T) {
	checkNoLeak(t)
	serial := tsys.New(tsys.Workers(1), tsys.Inline(inline.Everything()))
	want, _, err := tsys.Run(context.Background(), serial, fanout, [2]int{7, 1})
	if err != nil {
		t.Fatal(err)
	}
	// -short stops after 5 rounds once a Get has blocked, as one needs
	// to for the test to test anything; it may take the full 60 to see one.
	blocked := int64(0)
	for r := 0; r < 60 && !(testing.Short() && r >= 5 && blocked > 0); r++ {
		rt := tsys.New(tsys.Workers(2+r%7), tsys.Inline(inline.Never()))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		got, st, err := tsys.Run(ctx, rt, fanout, [2]int{7, 1})
		cancel()
		if err != nil || got != want {
			t.Fatalf("round %d: %d, %v; want %d", r, got, err, want)
		}
		blocked += st.BlockedWaits
	}
	if blocked == 0 {
		t.Error("no Get ever blocked: the test does not test the hand-off")
	}
}

// slowLeaf sleeps for its argument's microseconds; waitEach spawns n of them
// one after the other and waits for each: with 2 workers the idle one steals
// the leaf at once, so the Get blocks while the leaf still sleeps.
var slowLeaf, waitEach *tsys.Task[int, int]

func init() {
	slowLeaf = tsys.Register("test.slowLeaf", func(c *tsys.Ctx, us int) int {
		time.Sleep(time.Duration(us) * time.Microsecond)
		return 1
	})
	waitEach = tsys.Register("test.waitEach", func(c *tsys.Ctx, n int) int {
		sum := 0
		for range n {
			// The thief has a millisecond to take the leaf, which a
			// loaded machine needs; then the Get waits about 7 ms, so
			// that the task still mostly waits when a loaded machine
			// stretches its own millisecond to a few.
			f := slowLeaf.Spawn(c, 8000)
			time.Sleep(time.Millisecond)
			sum += f.Get(c)
		}
		return sum
	})
}

// TestBlockedWaitsReuseExecutors: an executor that passed its worker on is
// reused for the next blocked wait rather than a new goroutine started, so
// a run of many waits, one at a time, starts a handful of executors, not
// one per wait.
func TestBlockedWaitsReuseExecutors(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	got, st, err := tsys.Run(context.Background(), rt, waitEach, 40)
	if err != nil || got != 40 {
		t.Fatalf("got %d, %v; want 40", got, err)
	}
	started := tsys.Pool(rt).View().ExecutorsStarted()
	if st.BlockedWaits < 10 {
		t.Fatalf("only %d of 40 waits blocked: the idle worker did not steal the sleeping leaves", st.BlockedWaits)
	}
	if started > 2+3 {
		t.Errorf("%d waits blocked, one at a time, and %d executors started: spares are not reused", st.BlockedWaits, started)
	}
}

// TestInlinedSpawnDoesNotAllocate: with every spawn inlined, a run's
// allocations do not grow with the number of spawns (fib(25) makes 100
// times the spawns of fib(15)).
func TestInlinedSpawnDoesNotAllocate(t *testing.T) {
	t.Setenv("TSYS_CHECK_COPIES", "0") // it tests the runtime without the check
	rt := tsys.New(tsys.Workers(1), tsys.Inline(inline.Everything()))
	allocs := func(n int) float64 {
		return testing.AllocsPerRun(5, func() {
			if _, _, err := tsys.Run(context.Background(), rt, fib.Task, n); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(15), allocs(25)
	if large > small+5 {
		t.Errorf("fib(25) allocated %.0f times per run, fib(15) %.0f: inlined spawns allocate", large, small)
	}
}
