package tsys_test

import (
	"context"
	"sync"
	"testing"

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
func BenchmarkFib35W2(b *testing.B) { benchFib(b, 2, inline.Default(), 35) }

// BenchmarkSpawnGet is one spawn and one Get without inlining, on one
// worker: fib(20) has fib(21)-1 = 10945 spawns.
func BenchmarkSpawnGet(b *testing.B) {
	rt := tsys.New(tsys.Workers(1), tsys.Inline(inline.Never()))
	spawns := 0
	for b.Loop() {
		_, st, err := tsys.Run(context.Background(), rt, fib.Plain, 20)
		if err != nil {
			b.Fatal(err)
		}
		spawns += int(st.Spawns)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(spawns), "ns/spawn")
}

// BenchmarkForkJoin is one Fork and one Join without inlining, on one
// worker: fib.Task(20) forks where fib.Plain spawns, and its frames are
// reused instead of collected.
func BenchmarkForkJoin(b *testing.B) {
	rt := tsys.New(tsys.Workers(1), tsys.Inline(inline.Never()))
	spawns := 0
	for b.Loop() {
		_, st, err := tsys.Run(context.Background(), rt, fib.Task, 20)
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
