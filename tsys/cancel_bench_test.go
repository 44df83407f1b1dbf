package tsys_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// leafTime is the length of a leaf of the cancellation benchmarks: long
// enough that running every leaf left would take minutes.
const leafTime = 200 * time.Millisecond

var (
	benchLeavesBegun atomic.Int64
	pollingLeaf      *tsys.Task[int, int]
	deafLeaf         *tsys.Task[int, int]
	pollingFan       *tsys.Task[int, int]
	deafFan          *tsys.Task[int, int]
)

func init() {
	// pollingLeaf looks at its job's Done each millisecond; deafLeaf
	// never does. They sleep rather than spin, so that what is measured
	// is the runtime's reaction, not this machine's share of CPU.
	pollingLeaf = tsys.Register("bench.leaf.polling", func(c *tsys.Ctx, _ int) int {
		benchLeavesBegun.Add(1)
		for end := time.Now().Add(leafTime); time.Now().Before(end); {
			select {
			case <-c.Context().Done():
				return 0
			case <-time.After(time.Millisecond):
			}
		}
		return 1
	})
	deafLeaf = tsys.Register("bench.leaf.deaf", func(c *tsys.Ctx, _ int) int {
		benchLeavesBegun.Add(1)
		time.Sleep(leafTime)
		return 1
	})
	fan := func(leaf **tsys.Task[int, int]) func(*tsys.Ctx, int) int {
		return func(c *tsys.Ctx, n int) int {
			fs := make([]tsys.Forked[int], n)
			for i := range fs {
				fs[i] = (*leaf).Fork(c, i)
			}
			s := 0
			for i := n - 1; i >= 0; i-- {
				s += fs[i].Join(c)
			}
			return s
		}
	}
	pollingFan = tsys.Register("bench.fan.polling", fan(&pollingLeaf))
	deafFan = tsys.Register("bench.fan.deaf", fan(&deafLeaf))
}

// BenchmarkCancel measures how long Run takes to return after its
// context is cancelled, on 2 workers running 1,000 leaves of 200 ms (a
// job of 100 s), cancelled at a random point of the third leaf: with
// leaves that poll Ctx.Done each millisecond, and with leaves that never
// poll, whose running leaves finish first (at most one leaf's time).
// Metrics: the median and the largest delay, in ms, and the leaves that
// began in all (2 are running when the cancel comes).
func BenchmarkCancel(b *testing.B) {
	for _, c := range []struct {
		name string
		root *tsys.Task[int, int]
	}{{"polling", pollingFan}, {"deaf", deafFan}} {
		b.Run(c.name, func(b *testing.B) {
			rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
			var delays []float64
			var begun int64
			for i := 0; b.Loop(); i++ {
				benchLeavesBegun.Store(0)
				ctx, cancel := context.WithCancel(context.Background())
				var cancelledAt time.Time
				go func() {
					for benchLeavesBegun.Load() < 2 {
						time.Sleep(time.Millisecond)
					}
					// Spread over a leaf, by a step that does not repeat.
					time.Sleep(time.Duration(i*37%100) * leafTime / 100)
					cancelledAt = time.Now()
					cancel()
				}()
				_, _, err := tsys.Run(ctx, rt, c.root, 1000)
				returned := time.Now()
				cancel()
				if err == nil {
					b.Fatal("the run was not cancelled")
				}
				delays = append(delays, float64(returned.Sub(cancelledAt))/1e6)
				begun += benchLeavesBegun.Load()
			}
			slices.Sort(delays)
			b.ReportMetric(delays[len(delays)/2], "median-ms")
			b.ReportMetric(delays[len(delays)-1], "max-ms")
			b.ReportMetric(float64(begun)/float64(len(delays)), "leaves/op")
		})
	}
}
