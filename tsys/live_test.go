package tsys_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/tsys"
)

// TestLiveCountersWhileRunning: a reader polls the pool's live counters
// throughout a run (the race detector checks it reads only what the
// workers publish); they never go down within the run, and at its end
// they equal the run's own.
func TestLiveCountersWhileRunning(t *testing.T) {
	rt := tsys.New(tsys.Workers(2))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var polls int
	go func() {
		defer wg.Done()
		var last int64
		for {
			select {
			case <-stop:
				return
			default:
			}
			var run int64
			for _, s := range tsys.Pool(rt).View().Live(time.Now()) {
				run += s.TasksRun
				if s.Inlined > s.Spawns || s.BusyNanos < 0 || s.IdleNanos < 0 {
					t.Errorf("inconsistent live counters: %+v", s)
				}
			}
			if run < last {
				t.Errorf("live tasks_run went down from %d to %d", last, run)
			}
			last = run
			polls++
			time.Sleep(100 * time.Microsecond)
		}
	}()
	_, st, err := tsys.Run(context.Background(), rt, fib.Task, 27)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	var live struct{ run, spawns, inlined int64 }
	for _, s := range tsys.Pool(rt).View().Live(time.Now()) {
		live.run += s.TasksRun
		live.spawns += s.Spawns
		live.inlined += s.Inlined
	}
	if live.run != st.TasksRun || live.spawns != st.Spawns || live.inlined != st.Inlined {
		t.Errorf("after the run, live counters %+v, the run's tasks %d spawns %d inlined %d", live, st.TasksRun, st.Spawns, st.Inlined)
	}
	t.Logf("%d polls", polls)
}
