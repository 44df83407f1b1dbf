package tsys_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// The ratios the README reports come from these benchmarks run in one
// invocation (see bench/README.md for the command).

func BenchmarkFib35Serial(b *testing.B) {
	for b.Loop() {
		if fib.Serial(35) != 9227465 {
			b.Fatal("wrong")
		}
	}
}

func benchFib(b *testing.B, workers int, pol inline.Policy, n int) {
	rt := tsys.New(tsys.Workers(workers), tsys.Inline(pol))
	for b.Loop() {
		v, _, err := tsys.Run(context.Background(), rt, fib.Task, n)
		if err != nil || v != fib.Exact(n) {
			b.Fatal(v, err)
		}
	}
}

func BenchmarkFib35W1(b *testing.B) { benchFib(b, 1, inline.Default(), 35) }

// BenchmarkFib35Floor pairs, in each iteration, the serial fib(35), the
// runtime's fib on 1 worker, and the fast clone's code shape with no
// runtime at all (shapeFib: a context pointer passed down and a credit
// decremented per call). Its metrics are medians of the per-iteration
// ratios to the serial time: the second shows what the shape alone costs.
func BenchmarkFib35Floor(b *testing.B) {
	rt := tsys.New(tsys.Workers(1), tsys.Inline(inline.Default()))
	var runtimeRatio, shapeRatio []float64
	for b.Loop() {
		t0 := time.Now()
		fib.Serial(35)
		t1 := time.Now()
		if _, _, err := tsys.Run(context.Background(), rt, fib.Task, 35); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		shapeFib(&shapeCtx{}, 35)
		t3 := time.Now()
		serial := t1.Sub(t0).Seconds()
		runtimeRatio = append(runtimeRatio, t2.Sub(t1).Seconds()/serial)
		shapeRatio = append(shapeRatio, t3.Sub(t2).Seconds()/serial)
	}
	b.ReportMetric(median(runtimeRatio), "w1/serial")
	b.ReportMetric(median(shapeRatio), "shape/serial")
}

// shapeCtx and shapeFib are fib's fast clone (apps/fib) without the
// runtime: the same parameter, decrement and compare.
type shapeCtx struct{ credit int }

//go:noinline
func (c *shapeCtx) refill() bool { c.credit = 4096; return true }

func shapeFib(c *shapeCtx, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	c.credit--
	if c.credit >= 0 || c.refill() {
		return shapeFib(c, n-1) + shapeFib(c, n-2)
	}
	return 0
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func BenchmarkFib35W2(b *testing.B) { benchFib(b, 2, inline.Default(), 35) }

// BenchmarkFib35Natural pairs, in each iteration, the serial fib(35) with
// the three ways to write it on 1 worker at the default inlining: the fast
// clone (fib.Task), the natural code with Fork and Join (fib.Forking), and
// with Spawn and Get (fib.Plain); and the natural Fork code on 2 workers
// against 1. Metrics are medians of the per-iteration ratios.
func BenchmarkFib35Natural(b *testing.B) {
	w1 := tsys.New(tsys.Workers(1), tsys.Inline(inline.Default()))
	w2 := tsys.New(tsys.Workers(2), tsys.Inline(inline.Default()))
	check := func(v int64) {
		if v != fib.Exact(35) {
			b.Fatal(v)
		}
	}
	run := func(rt *tsys.Runtime, task *tsys.Task[int, int64]) func() {
		return func() {
			v, _, err := tsys.Run(context.Background(), rt, task, 35)
			if err != nil {
				b.Fatal(err)
			}
			check(v)
		}
	}
	runs := []func(){
		func() { check(fib.Serial(35)) },
		run(w1, fib.Task), run(w1, fib.Forking), run(w1, fib.Plain), run(w2, fib.Forking),
	}
	ratios := make([][]float64, len(runs))
	for i := 0; b.Loop(); i++ {
		took := make([]float64, len(runs))
		for k := range runs {
			r := (i + k) % len(runs)
			t0 := time.Now()
			runs[r]()
			took[r] = time.Since(t0).Seconds()
		}
		for r := 1; r < len(runs); r++ {
			ratios[r] = append(ratios[r], took[r]/took[0])
		}
		ratios[0] = append(ratios[0], took[2]/took[4])
	}
	b.ReportMetric(median(ratios[1]), "clone/serial")
	b.ReportMetric(median(ratios[2]), "fork/serial")
	b.ReportMetric(median(ratios[3]), "spawn/serial")
	b.ReportMetric(median(ratios[0]), "fork-w1/w2")
}

// BenchmarkSpawnGet is one spawn and one Get without inlining, on one
// worker: fib(20) has fib(21)-1 = 10945 spawns.
func BenchmarkSpawnGet(b *testing.B) { benchSpawns(b, fib.Plain) }

// BenchmarkForkJoin is one Fork and one Join without inlining, on one
// worker: fib.Task(20) forks where fib.Plain spawns, and its frames are
// reused instead of collected.
func BenchmarkForkJoin(b *testing.B) { benchSpawns(b, fib.Task) }

// benchSpawns runs task(20) on one worker with inlining off and reports
// the time per spawn.
func benchSpawns(b *testing.B, task *tsys.Task[int, int64]) {
	rt := tsys.New(tsys.Workers(1), tsys.Inline(inline.Never()))
	spawns := 0
	for b.Loop() {
		_, st, err := tsys.Run(context.Background(), rt, task, 20)
		if err != nil {
			b.Fatal(err)
		}
		spawns += int(st.Spawns)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(spawns), "ns/spawn")
}

// BenchmarkGoWaitGroup is the same tree with a goroutine and a WaitGroup
// per spawn: what plain Go costs.
func BenchmarkGoWaitGroup(b *testing.B) {
	var fib func(n int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		var wg sync.WaitGroup
		var a int
		wg.Add(1)
		go func() { a = fib(n - 1); wg.Done() }()
		c := fib(n - 2)
		wg.Wait()
		return a + c
	}
	for b.Loop() {
		fib(20)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10945), "ns/spawn")
}
