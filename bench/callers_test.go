package bench

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/internal/median"
	"github.com/tsys-go/tsys/tsys"
)

// Many callers of one runtime: a server whose handlers each run a small
// parallel job (issue 46). callerGoroutines goroutines make callerRequests
// requests each, one after another; a request is fib(callerFib) and the
// sum of callerInts integers, the two halves in parallel. The same
// requests run through tsys.Run (a registered root that forks fib and
// folds the sum; fib as natural code, and as apps/fib's generated clone),
// tsys.Do (a closure root, Pair of the halves), errgroup (a goroutine per
// half) and plainly (both halves in turn). Each reports requests/s and the
// 50th and 99th percentiles of a request's latency.

const (
	callerGoroutines = 16
	callerRequests   = 2000
	callerFib        = 20
	callerInts       = 10_000
)

var callerData = func() []int64 {
	xs := make([]int64, callerInts)
	for i := range xs {
		xs[i] = int64(i%97) - 48
	}
	return xs
}()

// callerWant is every request's answer.
var callerWant = fib.Serial(callerFib) + sumInts(callerData)

func sumInts(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}

var (
	callerFibTask *tsys.Task[int, int64]
	callerRoot    *tsys.Task[int, int64] // natural code: callerFibTask's forks
	callerClone   *tsys.Task[int, int64] // apps/fib's, with its generated fast clone
)

func callerFibBody(c *tsys.Ctx, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	a := callerFibTask.Fork(c, n-1)
	b := callerFibBody(c, n-2)
	return a.Join(c) + b
}

// callerSum sums callerData in parallel, as a request's second half.
func callerSum(c *tsys.Ctx) int64 {
	return tsys.Fold(c, 0, len(callerData), func() int64 { return 0 },
		func(_ *tsys.Ctx, lo, hi int, s int64) int64 { return s + sumInts(callerData[lo:hi]) },
		func(a, b int64) int64 { return a + b })
}

func init() {
	callerFibTask = tsys.Register("bench.callers.fib", callerFibBody)
	callerRoot = tsys.Register("bench.callers.request", func(c *tsys.Ctx, n int) int64 {
		f := callerFibTask.Fork(c, n)
		s := callerSum(c)
		return f.Join(c) + s
	})
	callerClone = tsys.Register("bench.callers.request-clone", func(c *tsys.Ctx, n int) int64 {
		f := fib.Task.Fork(c, n)
		s := callerSum(c)
		return f.Join(c) + s
	})
}

// callerWays are the ways a request runs.
var callerWays = []struct {
	name string
	// newServer makes what the requests share and returns one request.
	newServer func() func(ctx context.Context) (int64, error)
}{
	{"tsys.Run", func() func(ctx context.Context) (int64, error) {
		rt := tsys.New()
		return func(ctx context.Context) (int64, error) {
			v, _, err := tsys.Run(ctx, rt, callerRoot, callerFib)
			return v, err
		}
	}},
	{"tsys.Run-clone", func() func(ctx context.Context) (int64, error) {
		rt := tsys.New()
		return func(ctx context.Context) (int64, error) {
			v, _, err := tsys.Run(ctx, rt, callerClone, callerFib)
			return v, err
		}
	}},
	{"tsys.Do", func() func(ctx context.Context) (int64, error) {
		rt := tsys.New()
		return func(ctx context.Context) (int64, error) {
			v, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int64 {
				a, b := tsys.Pair(c, func(c *tsys.Ctx) int64 { return callerFibBody(c, callerFib) }, callerSum)
				return a + b
			})
			return v, err
		}
	}},
	{"errgroup", func() func(ctx context.Context) (int64, error) {
		return func(ctx context.Context) (int64, error) {
			var a, b int64
			g, _ := errgroup.WithContext(ctx)
			g.Go(func() error { a = fib.Serial(callerFib); return nil })
			g.Go(func() error { b = sumInts(callerData); return nil })
			err := g.Wait()
			return a + b, err
		}
	}},
	{"serial", func() func(ctx context.Context) (int64, error) {
		return func(context.Context) (int64, error) {
			return fib.Serial(callerFib) + sumInts(callerData), nil
		}
	}},
}

// BenchmarkManyCallers runs callerRequests requests on each of
// callerGoroutines goroutines, each way; one op is the whole load.
//
//	go test -run XXX -bench ManyCallers -count 10 ./bench
func BenchmarkManyCallers(b *testing.B) {
	for _, way := range callerWays {
		b.Run(way.name, func(b *testing.B) {
			request := way.newServer()
			var rate, p50, p99 []float64
			for b.Loop() {
				r, lat := serveCallers(b, request, callerGoroutines, callerRequests)
				rate = append(rate, r)
				p50 = append(p50, float64(lat[len(lat)/2].Microseconds()))
				p99 = append(p99, float64(lat[len(lat)*99/100].Microseconds()))
			}
			b.ReportMetric(median.Of(rate), "req/s")
			b.ReportMetric(median.Of(p50), "p50-us")
			b.ReportMetric(median.Of(p99), "p99-us")
		})
	}
}

// serveCallers makes n requests on each of g goroutines and returns the
// requests per second and every request's latency, sorted.
func serveCallers(tb testing.TB, request func(context.Context) (int64, error), g, n int) (float64, []time.Duration) {
	lat := make([][]time.Duration, g)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ls := make([]time.Duration, 0, n)
			for range n {
				t0 := time.Now()
				v, err := request(context.Background())
				ls = append(ls, time.Since(t0))
				if err != nil || v != callerWant {
					tb.Errorf("request = %d, %v; want %d", v, err, callerWant)
					return
				}
			}
			lat[i] = ls
		}()
	}
	wg.Wait()
	took := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	return float64(g*n) / took.Seconds(), all
}
