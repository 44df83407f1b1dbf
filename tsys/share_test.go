package tsys_test

import (
	"context"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// TestShareHoldsWorkersBack: with a share of 1, only worker 0 runs tasks,
// and the answer is the same as with every worker (sched.Port.SetShare,
// which a node sharing itself between jobs sets).
func TestShareHoldsWorkersBack(t *testing.T) {
	checkNoLeak(t)
	want, _, err := tsys.Run(context.Background(), tsys.New(tsys.Workers(2), tsys.Inline(inline.Never())), fanout, [2]int{7, 1})
	if err != nil {
		t.Fatal(err)
	}
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	tsys.Pool(rt).Port().SetShare(1)
	got, _, err := tsys.Run(context.Background(), rt, fanout, [2]int{7, 1})
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("with a share of 1: %d, want %d", got, want)
	}
	ws := tsys.WorkerStats(rt)
	if ws[0].TasksRun == 0 || ws[1].TasksRun != 0 {
		t.Errorf("tasks run by worker 0 and 1: %d and %d; want all by worker 0", ws[0].TasksRun, ws[1].TasksRun)
	}
}

// TestShareOfNothingWaits: a pool whose share is 0 runs nothing until the
// share is raised, then finishes.
func TestShareOfNothingWaits(t *testing.T) {
	checkNoLeak(t)
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	tsys.Pool(rt).Port().SetShare(0)
	done := make(chan int, 1)
	go func() {
		v, _, err := tsys.Run(context.Background(), rt, fanout, [2]int{5, 3})
		if err != nil {
			t.Error(err)
		}
		done <- v
	}()
	select {
	case v := <-done:
		t.Fatalf("a pool with a share of 0 ran its job (%d)", v)
	case <-time.After(50 * time.Millisecond):
	}
	tsys.Pool(rt).Port().SetShare(2)
	select {
	case v := <-done:
		if v <= 1 {
			t.Errorf("result %d", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("raising the share did not let the job finish")
	}
}
