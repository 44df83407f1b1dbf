package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tsys-go/tsys/tsys"
)

// A search that stops at its first solution (tsys's ExampleCtx_Fail_firstSolution),
// against errgroup: the candidates [0, firstCands) in leaves of
// firstLeaf, one of which is the solution, at a fraction of the range.

const (
	firstCands = 1 << 26
	firstLeaf  = 1 << 15 // about 50 us of hashing
	firstPoll  = 1 << 10 // a leaf polls its context this often
)

var errFirstFound = errors.New("found")

// firstSearch is one search's solution and what it measures.
type firstSearch struct {
	wanted  uint32       // the solution's hash
	foundAt atomic.Int64 // when the solution was found, unix ns; 0 before
	after   atomic.Int64 // candidates hashed after it was found, counted by the firstPoll
}

// leaf scans [lo, hi), polling ctx every firstPoll candidates, and
// reports whether it found the solution.
func (s *firstSearch) leaf(ctx context.Context, lo, hi uint32) bool {
	for x := lo; x < hi; x++ {
		if (x-lo)%firstPoll == 0 {
			if ctx.Err() != nil {
				return false
			}
			if s.foundAt.Load() != 0 {
				s.after.Add(firstPoll)
			}
		}
		if firstHash(x) == s.wanted {
			s.foundAt.Store(time.Now().UnixNano())
			return true
		}
	}
	return false
}

// firstHash mixes x's bits (lowbias32): a bijection, so the search has
// one solution.
func firstHash(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	return x ^ x>>16
}

// firstRange is a task's range of candidates and its search.
type firstRange struct {
	Lo, Hi uint32
	s      *firstSearch
}

var firstTask *tsys.Task[firstRange, struct{}]

func init() { firstTask = tsys.RegisterAction("bench.first", firstTSys) }

// firstTSys is the search as tsys's doc writes it: in the serial order,
// the later half forked and the earlier one searched now, and
// c.Fail(errFound) at the solution.
func firstTSys(c *tsys.Ctx, r firstRange) {
	if r.Hi-r.Lo <= firstLeaf {
		if r.s.leaf(c.Context(), r.Lo, r.Hi) {
			c.Fail(errFirstFound)
		}
		return
	}
	mid := r.Lo + (r.Hi-r.Lo)/2
	if c.AllowCCall() {
		firstTask.Call(c, firstRange{r.Lo, mid, r.s})
		firstTask.Call(c, firstRange{mid, r.Hi, r.s})
		return
	}
	later := firstTask.Fork(c, firstRange{mid, r.Hi, r.s})
	firstTask.Call(c, firstRange{r.Lo, mid, r.s})
	later.Join(c)
}

// firstErrgroup is the search as errgroup's users write it: the leaves in
// order, as many at once as there are CPUs, none started once the group's
// context is done, and the solution returned as the group's error.
func firstErrgroup(ctx context.Context, s *firstSearch, workers int) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for lo := uint32(0); lo < firstCands && ctx.Err() == nil; lo += firstLeaf {
		g.Go(func() error {
			if s.leaf(ctx, lo, lo+firstLeaf) {
				return errFirstFound
			}
			return nil
		})
	}
	return g.Wait()
}

// BenchmarkFirstSolution: the time to the answer (ns/op), the time from
// finding the solution to the search's return (us-after-answer/op), and
// the candidates hashed after the answer (hashes-after-answer/op), with
// the solution at a fraction of the range (at=), for tsys (GOMAXPROCS
// workers) and errgroup (as many goroutines at once).
func BenchmarkFirstSolution(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	rt := tsys.New(tsys.Workers(workers))
	ctx := context.Background()
	for _, at := range []float64{0.1, 0.37, 0.62, 0.9} {
		wanted := firstHash(uint32(at * firstCands))
		for _, form := range []struct {
			name   string
			search func(s *firstSearch) error
		}{
			{"tsys", func(s *firstSearch) error {
				_, _, err := tsys.Run(ctx, rt, firstTask, firstRange{0, firstCands, s})
				return err
			}},
			{"errgroup", func(s *firstSearch) error { return firstErrgroup(ctx, s, workers) }},
		} {
			b.Run(fmt.Sprintf("at=%.2f/%s", at, form.name), func(b *testing.B) {
				var after, latency int64
				for range b.N {
					s := &firstSearch{wanted: wanted}
					err := form.search(s)
					end := time.Now().UnixNano()
					if !errors.Is(err, errFirstFound) {
						b.Fatalf("the search returned %v, want the solution", err)
					}
					after += s.after.Load()
					latency += end - s.foundAt.Load()
				}
				b.ReportMetric(float64(after)/float64(b.N), "hashes-after-answer/op")
				b.ReportMetric(float64(latency)/float64(b.N)/1e3, "us-after-answer/op")
			})
		}
	}
}
