package tsys_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/tsys"
)

// How soon a failure stops a job whose leaves never poll: the issue's
// recursion of 50 ms leaves, and a failure at the first of 4,000 leaves
// against plain Go's fail-fast group (a WaitGroup and a context, as
// errgroup does it).

// deafJob is a binary recursion over leaves [Lo, Hi) of Leaf each, in
// which leaf FailAt fails: the FailAt-th to begin (from 1), or with
// ByIndex the one of index FailAt, in the program's order.
type deafJob struct {
	Lo, Hi, FailAt int
	ByIndex        bool
	// ForkRight calls the left half first and forks the right one, or
	// calls it after, so that the leaves begin in the program's order on
	// each worker: the order of a search that must fail fast.
	ForkRight bool
	Leaf      time.Duration
}

var (
	deafTree   *tsys.Task[deafJob, int]
	deafBegun  atomic.Int64
	deafFailAt atomic.Int64 // UnixNano of the failure
	errDeaf    = errors.New("the failing leaf")
)

func init() {
	deafTree = tsys.Register("bench.stop.tree", func(c *tsys.Ctx, j deafJob) int {
		if j.Hi-j.Lo == 1 {
			if n := int(deafBegun.Add(1)); !j.ByIndex && n == j.FailAt || j.ByIndex && j.Lo == j.FailAt {
				deafFailAt.Store(time.Now().UnixNano())
				c.Fail(errDeaf)
			}
			time.Sleep(j.Leaf)
			return 1
		}
		mid := j.Lo + (j.Hi-j.Lo)/2
		left, right := j, j
		left.Hi, right.Lo = mid, mid
		if j.ForkRight {
			// Fork's Order: the halves in order, as plain calls while
			// enough tasks are ready; else the right one waits as a task.
			if c.AllowCCall() {
				a := deafTree.Call(c, left)
				return a + deafTree.Call(c, right)
			}
			b := deafTree.Fork(c, right)
			a := deafTree.Call(c, left)
			return a + b.Join(c)
		}
		a := deafTree.Fork(c, left)
		b := deafTree.Call(c, right)
		return a.Join(c) + b
	})
}

// BenchmarkFailureLatency runs a recursion of 256 leaves of 50 ms that
// never poll, the eighth of which fails, on 1 and 2 workers, and reports
// the median and the largest time from the failure to Run's return
// (at most one leaf's time, the leaves running then, is the target) and
// the leaves begun per run. Run it with -benchtime=11x for the median of
// 11.
func BenchmarkFailureLatency(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			rt := tsys.New(tsys.Workers(w))
			var delays []float64
			var begun int64
			for b.Loop() {
				deafBegun.Store(0)
				_, _, err := tsys.Run(context.Background(), rt, deafTree, deafJob{Lo: 0, Hi: 256, FailAt: 8, Leaf: 50 * time.Millisecond})
				returned := time.Now()
				if !errors.Is(err, errDeaf) {
					b.Fatalf("err = %v, want the leaf's", err)
				}
				delays = append(delays, float64(returned.UnixNano()-deafFailAt.Load())/1e6)
				begun += deafBegun.Load()
			}
			slices.Sort(delays)
			b.ReportMetric(delays[len(delays)/2], "median-ms")
			b.ReportMetric(delays[len(delays)-1], "max-ms")
			b.ReportMetric(float64(begun)/float64(len(delays)), "leaves/op")
		})
	}
}

// The fail-fast case: 4,000 leaves of 500 us, of which the first, in the
// program's order, fails.
const (
	firstLeaves   = 4000
	firstLeafTime = 500 * time.Microsecond
)

// BenchmarkFailFirstLeaf reports the time to the error and the leaves
// begun when the first of 4,000 leaves fails, on 2 workers: the tsys
// recursion, which forks its left half (a fork runs after its
// continuation when it is a task, before it when it is a call), and a
// group of goroutines over the same leaves in order, two at a time,
// none begun after the error, as errgroup with SetLimit(2) does.
func BenchmarkFailFirstLeaf(b *testing.B) {
	for _, forkRight := range []bool{false, true} {
		name := "tsys-fork-left"
		if forkRight {
			name = "tsys-fork-right"
		}
		b.Run(name, func(b *testing.B) {
			rt := tsys.New(tsys.Workers(2))
			var begun int64
			for b.Loop() {
				deafBegun.Store(0)
				_, _, err := tsys.Run(context.Background(), rt, deafTree, deafJob{Lo: 0, Hi: firstLeaves, FailAt: 0, ByIndex: true, ForkRight: forkRight, Leaf: firstLeafTime})
				if !errors.Is(err, errDeaf) {
					b.Fatalf("err = %v, want the leaf's", err)
				}
				begun += deafBegun.Load()
			}
			b.ReportMetric(float64(begun)/float64(b.N), "leaves/op")
		})
	}
	b.Run("group", func(b *testing.B) {
		var begun int64
		for b.Loop() {
			n, err := failFastGroup(firstLeaves, 2, func(i int) error {
				if i == 0 {
					return errDeaf
				}
				time.Sleep(firstLeafTime)
				return nil
			})
			if !errors.Is(err, errDeaf) {
				b.Fatalf("err = %v, want the leaf's", err)
			}
			begun += n
		}
		b.ReportMetric(float64(begun)/float64(b.N), "leaves/op")
	})
}

// failFastGroup runs leaf(0..n-1) on at most limit goroutines at once and
// returns the first error, starting no leaf after it: errgroup.Group
// with SetLimit and WithContext, written out (golang.org/x/sync is not a
// dependency of this module). It returns how many leaves began.
func failFastGroup(n, limit int, leaf func(i int) error) (int64, error) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var wg sync.WaitGroup
	var begun atomic.Int64
	sem := make(chan struct{}, limit)
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			begun.Add(1)
			if err := leaf(i); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	return begun.Load(), context.Cause(ctx)
}
