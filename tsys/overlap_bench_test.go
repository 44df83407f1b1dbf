package tsys_test

import (
	"context"
	"sync"
	"testing"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/tsys"
)

// BenchmarkRunStartsOn measures what a run that finds the runtime's
// pool busy pays for a spare pool (Runtime's doc): the time of a run of
// one tiny task on the main pool, free, against the same run from inside
// a task of the runtime, which takes a spare pool (made once, then
// reused).
func BenchmarkRunStartsOn(b *testing.B) {
	tiny := func(*tsys.Ctx) int { return 1 }
	b.Run("main", func(b *testing.B) {
		rt := tsys.New(tsys.Workers(2))
		for b.Loop() {
			if _, _, err := tsys.Do(context.Background(), rt, tiny); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spare", func(b *testing.B) {
		rt := tsys.New(tsys.Workers(2))
		_, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int {
			for b.Loop() {
				if _, _, err := tsys.Do(c.Context(), rt, tiny); err != nil {
					b.Fatal(err)
				}
			}
			return 0
		})
		if err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkTwoRuns measures two fib runs on one runtime of 2 workers, one
// after the other against both at once from two goroutines (the second
// on a spare pool, the two pools' 4 workers sharing the CPUs).
func BenchmarkTwoRuns(b *testing.B) {
	const n = 30
	run := func(b *testing.B, rt *tsys.Runtime) {
		if v, _, err := tsys.Run(context.Background(), rt, fib.Task, n); err != nil || v != fib.Serial(n) {
			b.Errorf("fib(%d) = %d, %v", n, v, err)
		}
	}
	b.Run("after", func(b *testing.B) {
		rt := tsys.New(tsys.Workers(2))
		for b.Loop() {
			run(b, rt)
			run(b, rt)
		}
	})
	b.Run("atonce", func(b *testing.B) {
		rt := tsys.New(tsys.Workers(2))
		for b.Loop() {
			var wg sync.WaitGroup
			wg.Add(2)
			for range 2 {
				go func() {
					defer wg.Done()
					run(b, rt)
				}()
			}
			wg.Wait()
		}
	})
}
