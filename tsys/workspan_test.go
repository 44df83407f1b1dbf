package tsys_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/tsys"
)

// The graph of diamond: the root spawns a (20 ms) and b (10 ms), which
// spawns c (30 ms) and waits for it; the root waits for both. Its work is
// 60 ms and its span 40 ms (b then c), whatever the workers do.
var diamond, sleepTask *tsys.Task[time.Duration, int]

func init() {
	sleepTask = tsys.Register("test.ws.sleep", func(c *tsys.Ctx, d time.Duration) int {
		time.Sleep(d)
		return 1
	})
	diamond = tsys.Register("test.ws.diamond", func(c *tsys.Ctx, unit time.Duration) int {
		a := sleepTask.Spawn(c, 2*unit)
		b := bThenC.Spawn(c, unit)
		return a.Get(c) + b.Get(c)
	})
}

var bThenC = tsys.Register("test.ws.b", func(c *tsys.Ctx, unit time.Duration) int {
	time.Sleep(unit)
	return sleepTask.Spawn(c, 3*unit).Get(c) + 1
})

// TestWorkAndSpan: the measured work and span of a known graph are its
// own, on one worker (where everything runs in turn) and on two.
func TestWorkAndSpan(t *testing.T) {
	const unit = 10 * time.Millisecond
	for _, workers := range []int{1, 2} {
		rt := tsys.New(tsys.Workers(workers), tsys.MeasureWorkSpan())
		got, _, err := tsys.Run(context.Background(), rt, diamond, unit)
		if err != nil || got != 3 {
			t.Fatalf("%d workers: %d, %v", workers, got, err)
		}
		work, span := tsys.WorkSpan(rt)
		// Sleeps overrun, never undershoot: the bounds below are loose
		// above and exact below.
		if work < 6*unit || work > 6*unit+40*time.Millisecond {
			t.Errorf("%d workers: work %v, want 60 ms", workers, work)
		}
		if span < 4*unit || span > 4*unit+30*time.Millisecond || span > work-unit {
			t.Errorf("%d workers: span %v, want 40 ms (work %v)", workers, span, work)
		}
	}
	// Without the option nothing is measured.
	rt := tsys.New(tsys.Workers(1))
	if _, _, err := tsys.Run(context.Background(), rt, diamond, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if w, s := tsys.WorkSpan(rt); w != 0 || s != 0 {
		t.Errorf("unmeasured run: work %v span %v", w, s)
	}
}

// TestRecordTree: the recorder gives each task its parent, in spawn
// order, and the work its own frame did, on one worker or two.
func TestRecordTree(t *testing.T) {
	const unit = 5 * time.Millisecond
	for _, workers := range []int{1, 2} {
		rt := tsys.New(tsys.Workers(workers), tsys.MeasureWorkSpan())
		rec := sched.NewTreeRecorder()
		tsys.Pool(rt).SetTreeRecorder(rec)
		if _, _, err := tsys.Run(context.Background(), rt, diamond, unit); err != nil {
			t.Fatal(err)
		}
		// diamond spawns a (2 units) and b (1 unit); b spawns c (3 units).
		if !reflect.DeepEqual(rec.Parent, []int32{-1, 0, 0, 2}) {
			t.Fatalf("%d workers: parents %v", workers, rec.Parent)
		}
		for i, want := range []time.Duration{0, 2 * unit, unit, 3 * unit} {
			if got := time.Duration(rec.WorkNs[i]); got < want || got > want+20*time.Millisecond {
				t.Errorf("%d workers: task %d worked %v, want %v", workers, i, got, want)
			}
		}
	}
}

// TestRecordTreeLimit: a run that spawns more tasks than the recorder's
// Limit keeps only that many and says so; the next run within it records
// whole again.
func TestRecordTreeLimit(t *testing.T) {
	rt := tsys.New(tsys.Workers(2), tsys.MeasureWorkSpan())
	rec := sched.NewTreeRecorder()
	rec.Limit = 100
	tsys.Pool(rt).SetTreeRecorder(rec)
	if got, _, err := tsys.Run(context.Background(), rt, fib.Plain, 15); err != nil || got != 610 {
		t.Fatalf("fib(15) = %d, %v", got, err)
	}
	if !rec.Overflowed() || len(rec.Parent) != 100 || len(rec.WorkNs) != 100 {
		t.Fatalf("fib(15) with Limit 100: overflowed %v, %d parents, %d work times", rec.Overflowed(), len(rec.Parent), len(rec.WorkNs))
	}
	// The trees of two runs compare only on one worker: on two, the
	// order in which the workers number their tasks is the machine's.
	one := tsys.New(tsys.Workers(1), tsys.MeasureWorkSpan())
	tsys.Pool(one).SetTreeRecorder(rec)
	if got, _, err := tsys.Run(context.Background(), one, fib.Plain, 5); err != nil || got != 5 {
		t.Fatalf("fib(5) = %d, %v", got, err)
	}
	if rec.Overflowed() {
		t.Fatal("fib(5) overflowed a Limit of 100")
	}
	within := slices.Clone(rec.Parent)
	rec.Limit = 0
	if _, _, err := tsys.Run(context.Background(), one, fib.Plain, 5); err != nil {
		t.Fatal(err)
	}
	if rec.Overflowed() || !slices.Equal(within, rec.Parent) {
		t.Fatalf("fib(5) within Limit 100: overflowed %v, parents %v, want %v", rec.Overflowed(), within, rec.Parent)
	}
}

// TestWorkSpanUnderSteals: a fine-grained tree on two workers, measured,
// so that thieves begin tasks the moment they are pushed. Under the race
// detector it checks that a task's span clock is written before the push
// that may publish it.
func TestWorkSpanUnderSteals(t *testing.T) {
	rt := tsys.New(tsys.Workers(2), tsys.MeasureWorkSpan())
	for range 5 {
		got, _, err := tsys.Run(context.Background(), rt, fib.Plain, 18)
		if err != nil || got != 2584 {
			t.Fatalf("fib(18) = %d, %v", got, err)
		}
		if work, span := tsys.WorkSpan(rt); span <= 0 || span > work {
			t.Fatalf("work %v, span %v: want 0 < span <= work", work, span)
		}
	}
}
