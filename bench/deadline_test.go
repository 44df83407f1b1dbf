package bench

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/tsys"
)

// Deadlines under load (issue 46): fib(32) under a 1 ms deadline, alone,
// beside a run that holds the runtime, and from 16 callers at once (fib
// of 20 to 29). Each reports the runs that succeeded with a result ready
// only after their deadline (which must be none), and how late after it
// the others returned their DeadlineExceeded: the median and the 99th
// percentile.
//
//	go test -run XXX -bench Deadline -count 5 ./bench

const deadlineBudget = time.Millisecond

// deadlineRoot runs fib(n) and says in its result whether the value was
// ready only after the deadline its caller set: such a run must not
// succeed. Timing the success from outside would count a result ready in
// time whose caller was descheduled before it read the clock.
var deadlineRoot = tsys.Register("bench.deadline.root", func(c *tsys.Ctx, a deadlineArg) deadlineResult {
	v := fib.Task.Call(c, a.N)
	return deadlineResult{Fib: v, Late: time.Now().After(a.Deadline)}
})

type deadlineArg struct {
	N        int
	Deadline time.Time
}

type deadlineResult struct {
	Fib  int64
	Late bool // ready after the deadline
}

// deadlineOnce runs fib(n) under deadlineBudget and returns how late
// after the deadline it returned, and whether it succeeded with a result
// that was ready only after the deadline.
func deadlineOnce(tb testing.TB, rt *tsys.Runtime, n int) (late time.Duration, lateResult bool) {
	deadline := time.Now().Add(deadlineBudget)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	r, _, err := tsys.Run(ctx, rt, deadlineRoot, deadlineArg{N: n, Deadline: deadline})
	late = time.Since(deadline)
	switch {
	case err == nil && r.Fib != fib.Serial(n):
		tb.Errorf("fib(%d) = %d", n, r.Fib)
	case err == nil:
		return late, r.Late
	case !errors.Is(err, context.DeadlineExceeded):
		tb.Errorf("fib(%d): %v", n, err)
	}
	return late, false
}

func BenchmarkDeadline(b *testing.B) {
	report := func(b *testing.B, lates []time.Duration, lateResults int) {
		slices.Sort(lates)
		if len(lates) > 0 {
			b.ReportMetric(float64(lates[len(lates)/2].Microseconds()), "late-p50-us")
			b.ReportMetric(float64(lates[len(lates)*99/100].Microseconds()), "late-p99-us")
		}
		b.ReportMetric(float64(lateResults), "late-results")
	}
	// inTurn runs deadlines one after another on rt, twenty an
	// iteration, and reports their lateness.
	inTurn := func(b *testing.B, rt *tsys.Runtime) {
		var lates []time.Duration
		bad := 0
		for b.Loop() {
			for range 20 {
				l, r := deadlineOnce(b, rt, 32)
				lates = append(lates, l)
				bad += btoi(r)
			}
		}
		report(b, lates, bad)
	}
	b.Run("alone", func(b *testing.B) {
		rt := tsys.New(tsys.Workers(2))
		inTurn(b, rt)
	})
	b.Run("beside", func(b *testing.B) {
		rt := tsys.New(tsys.Workers(2))
		stop := make(chan struct{})
		var busy sync.WaitGroup
		busy.Add(1)
		go func() {
			defer busy.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				tsys.Run(context.Background(), rt, fib.Task, 30)
			}
		}()
		inTurn(b, rt)
		close(stop)
		busy.Wait()
	})
	b.Run("16callers", func(b *testing.B) {
		rt := tsys.New(tsys.Workers(2))
		var lates []time.Duration
		bad := 0
		var mu sync.Mutex
		for b.Loop() {
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 50 {
						l, r := deadlineOnce(b, rt, 20+i%10)
						mu.Lock()
						if l > 0 {
							lates = append(lates, l)
						}
						bad += btoi(r)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
		}
		report(b, lates, bad)
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
