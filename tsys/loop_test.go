package tsys_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// squares lists i*i + env for i in a range, in index order, with costs that
// differ from one iteration to the next.
var squares = tsys.RegisterFold("test.squares",
	func() []int64 { return nil },
	func(c *tsys.Ctx, env int64, lo, hi int, out []int64) []int64 {
		for i := lo; i < hi; i++ {
			x := int64(0)
			for k := 0; k < i%17*50; k++ { // uneven iterations
				x += int64(k)
			}
			_ = x
			out = append(out, int64(i)*int64(i)+env)
		}
		return out
	},
	func(a, b []int64) []int64 { return append(a, b...) })

// squaresEven is squares with even iterations, and a result made in
// place.
var squaresEven = tsys.RegisterFold("test.squares-even",
	func() []int64 { return make([]int64, 0, 16) },
	func(c *tsys.Ctx, env int64, lo, hi int, out []int64) []int64 {
		for i := lo; i < hi; i++ {
			out = append(out, int64(i)*int64(i)+env)
		}
		return out
	},
	func(a, b []int64) []int64 { return append(a, b...) })

// splits are the ways a loop may be split, by name.
var splits = map[string][]tsys.LoopOption{
	"adaptive":  nil,
	"factoring": {tsys.Factoring},
	"grain 1":   {tsys.Grain(1)},
	"grain 16":  {tsys.Grain(16)},
	"grain 0":   {tsys.Grain(0)}, // adaptive too
}

// policies are the inlining policies a loop must be right under: the
// default, every fork a task, and every fork a call.
var policies = []inline.Policy{inline.Default(), inline.Never(), inline.Everything()}

// TestLoopCoversTheRangeInOrder: every iteration runs once, results come
// in index order, on 1 and 2 workers, with every inlining policy and
// split, for empty, one-element and odd-sized ranges.
func TestLoopCoversTheRangeInOrder(t *testing.T) {
	for _, workers := range []int{1, 2} {
		for _, inl := range policies {
			rt := tsys.New(tsys.Workers(workers), tsys.Inline(inl))
			for name, opts := range splits {
				for loop, l := range map[string]*tsys.Loop[int64, []int64]{"squares": squares, "squares-even": squaresEven} {
					for _, c := range []struct{ lo, hi int }{{0, 1000}, {3, 700}, {5, 5}, {9, 10}, {0, 2}, {0, 3}, {11, 8}, {0, 12345}} {
						got, st, err := tsys.Do(context.Background(), rt, func(ctx *tsys.Ctx) []int64 { return l.Call(ctx, 7, c.lo, c.hi, opts...) })
						if err != nil {
							t.Fatal(err)
						}
						var want []int64
						for i := c.lo; i < c.hi; i++ {
							want = append(want, int64(i)*int64(i)+7)
						}
						if !slices.Equal(got, want) {
							t.Fatalf("%s, %d workers, %v, %s, %+v: %d results, want %d (first %v)", loop, workers, inl, name, c, len(got), len(want), got[:min(3, len(got))])
						}
						if inl == inline.Never() && name == "grain 1" && c.hi-c.lo > 1 && st.TasksRun < 2 {
							t.Errorf("%+v without inlining ran %d tasks", c, st.TasksRun)
						}
					}
				}
			}
		}
	}
}

// loopOuter runs loops from a task's body, and a loop inside a loop's
// body. Registered once, so that the tests can run again (-count).
var loopOuter = tsys.Register("test.loop-outer", func(c *tsys.Ctx, n int) string {
	rows := make([]int, n)
	tsys.For(c, 0, n, func(c *tsys.Ctx, lo, hi int) {
		for i := lo; i < hi; i++ {
			// A loop nested in a loop's body, over a range of its own.
			rows[i] = tsys.Fold(c, 0, n, zero, func(_ *tsys.Ctx, lo, hi, acc int) int { return acc + hi - lo }, add)
		}
	})
	sum := tsys.Fold(c, 0, n, zero, func(_ *tsys.Ctx, lo, hi, acc int) int {
		for _, r := range rows[lo:hi] {
			acc += r
		}
		return acc
	}, add)
	return fmt.Sprint(squares.Call(c, 0, 0, n, tsys.Grain(2)), squaresEven.Call(c, 1, 0, n), sum)
})

func zero() int        { return 0 }
func add(a, b int) int { return a + b }

// TestLoopInsideATask: loops nest in a task, and in each other.
func TestLoopInsideATask(t *testing.T) {
	for _, inl := range policies {
		got, _, err := tsys.Run(context.Background(), tsys.New(tsys.Workers(2), tsys.Inline(inl)), loopOuter, 5)
		if err != nil || got != "[0 1 4 9 16] [1 2 5 10 17] 25" {
			t.Fatalf("%v: %q, %v", inl, got, err)
		}
	}
}

// do runs f as a job on rt and fails the test on an error.
func do[R any](t *testing.T, rt *tsys.Runtime, f func(c *tsys.Ctx) R) R {
	t.Helper()
	v, _, err := tsys.Do(context.Background(), rt, f)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestClosureLoopsMatchSerial: For and Fold give what the serial loop
// gives, for sizes from empty up, with every split and inlining policy.
// Fold's combine is not commutative (a concatenation), so order shows.
func TestClosureLoopsMatchSerial(t *testing.T) {
	for _, workers := range []int{1, 2} {
		for _, inl := range policies {
			rt := tsys.New(tsys.Workers(workers), tsys.Inline(inl))
			for name, opts := range splits {
				for _, n := range []int{0, 1, 2, 3, 17, 1000, 100_003} {
					what := fmt.Sprintf("%d workers, %v, %s, n=%d", workers, inl, name, n)
					xs := make([]int, n)
					for i := range xs {
						xs[i] = (i*7919)%1009 - 500
					}

					seen := make([]atomic.Int32, n)
					do(t, rt, func(c *tsys.Ctx) int {
						tsys.For(c, 0, n, func(_ *tsys.Ctx, lo, hi int) {
							for i := lo; i < hi; i++ {
								seen[i].Add(1)
							}
						}, opts...)
						return 0
					})
					for i := range seen {
						if seen[i].Load() != 1 {
							t.Fatalf("%s: For ran iteration %d %d times", what, i, seen[i].Load())
						}
					}

					// Fold: each piece appends to a slice of its own.
					folded := do(t, rt, func(c *tsys.Ctx) []int {
						return tsys.Fold(c, 0, n, func() []int { return nil }, func(_ *tsys.Ctx, lo, hi int, acc []int) []int {
							for i := lo; i < hi; i++ {
								acc = append(acc, xs[i])
							}
							return acc
						}, func(a, b []int) []int { return append(a, b...) }, opts...)
					})
					if !slices.Equal(folded, xs) && (n > 0 || folded != nil) {
						t.Fatalf("%s: Fold gave %d elements, equal %v", what, len(folded), slices.Equal(folded, xs))
					}

				}
			}
		}
	}
}

// TestBothRunsBoth: Both runs both closures, also nested and under every
// inlining policy, and a recursive sum built on it is right.
func TestBothRunsBoth(t *testing.T) {
	var sumTo func(c *tsys.Ctx, lo, hi int) int
	sumTo = func(c *tsys.Ctx, lo, hi int) int {
		if hi-lo <= 8 {
			s := 0
			for i := lo; i < hi; i++ {
				s += i
			}
			return s
		}
		mid := (lo + hi) / 2
		var a, b int
		tsys.Both(c, func(c *tsys.Ctx) { a = sumTo(c, lo, mid) }, func(c *tsys.Ctx) { b = sumTo(c, mid, hi) })
		return a + b
	}
	for _, inl := range policies {
		for _, workers := range []int{1, 2} {
			if got := do(t, tsys.New(tsys.Workers(workers), tsys.Inline(inl)), func(c *tsys.Ctx) int { return sumTo(c, 0, 100_000) }); got != 100_000*99_999/2 {
				t.Fatalf("%v, %d workers: %d", inl, workers, got)
			}
		}
	}
}

// TestLoopCoverageProperty: for random ranges, options, policies and
// iteration costs (some iterations thousands of times costlier than
// others), every iteration runs exactly once and results keep order.
func TestLoopCoverageProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	rts := []*tsys.Runtime{tsys.New(tsys.Workers(1)), tsys.New(tsys.Workers(2)), tsys.New(tsys.Workers(2), tsys.Inline(inline.Never())), tsys.New(tsys.Workers(3))}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range splits {
			if !yield(k) {
				return
			}
		}
	})
	for seed := range 60 {
		rt := rts[r.IntN(len(rts))]
		name := names[r.IntN(len(names))]
		lo := r.IntN(100) - 50
		hi := lo + int(math.Exp(r.Float64()*11)) - 1
		costs := make([]int32, max(hi-lo, 0))
		for i := range costs {
			costs[i] = int32(min(1/math.Pow(1-r.Float64(), 1/1.1), 5000))
		}
		seen := make([]atomic.Int32, len(costs))
		got := do(t, rt, func(c *tsys.Ctx) []int {
			return tsys.Fold(c, lo, hi, func() []int { return nil }, func(_ *tsys.Ctx, a, b int, out []int) []int {
				for i := a; i < b; i++ {
					spin(costs[i-lo])
					seen[i-lo].Add(1)
					out = append(out, i)
				}
				return out
			}, func(a, b []int) []int { return append(a, b...) }, splits[name]...)
		})
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("seed %d (%s, [%d, %d)): iteration %d ran %d times", seed, name, lo, hi, lo+i, seen[i].Load())
			}
		}
		if len(got) != len(costs) || !slices.IsSorted(got) {
			t.Fatalf("seed %d (%s, [%d, %d)): %d results, sorted %v", seed, name, lo, hi, len(got), slices.IsSorted(got))
		}
	}
}

// TestLoopStopsWhenTheJobFails: a loop far too long to finish ends when
// the job's context is cancelled, and when one of its iterations panics;
// Run says why.
func TestLoopStopsWhenTheJobFails(t *testing.T) {
	rt := tsys.New(tsys.Workers(2))
	ctx, cancel := context.WithCancelCause(context.Background())
	var ran atomic.Int64
	go func() {
		for ran.Load() < 1_000_000 { // cancel once the loop is well under way
			time.Sleep(time.Millisecond)
		}
		cancel(errors.New("enough"))
	}()
	_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
		tsys.For(c, 0, math.MaxInt, func(_ *tsys.Ctx, lo, hi int) { ran.Add(int64(hi - lo)) })
		return 0
	})
	if err == nil || !strings.Contains(err.Error(), "enough") {
		t.Fatalf("cancelled loop: %v", err)
	}
	_, _, err = tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int {
		return tsys.Fold(c, 0, 1_000_000, zero, func(_ *tsys.Ctx, lo, hi, acc int) int {
			if lo <= 765_432 && 765_432 < hi {
				panic("iteration 765432")
			}
			return acc + hi - lo
		}, add)
	})
	var tp *tsys.TaskPanic
	if !errors.As(err, &tp) || !strings.Contains(err.Error(), "iteration 765432") {
		t.Fatalf("a panicking loop: %v", err)
	}
}

// Loops over a slice held in their environment: one that only reads it,
// declared ByValue, and one that writes the caller's memory through it.
var (
	sliceSum = tsys.RegisterFold("test.slice-sum", zero, func(_ *tsys.Ctx, xs []int, lo, hi, s int) int {
		for _, x := range xs[lo:hi] {
			s += x
		}
		return s
	}, add, tsys.ByValue())
	sliceFill = tsys.RegisterFold("test.slice-fill", zero, func(_ *tsys.Ctx, xs []int, lo, hi, n int) int {
		for i := lo; i < hi; i++ {
			xs[i] = i
		}
		return n + hi - lo
	}, add)
	sliceFillClaimed = tsys.RegisterFold("test.slice-fill-claimed", zero, func(_ *tsys.Ctx, xs []int, lo, hi, n int) int {
		for i := lo; i < hi; i++ {
			xs[i] = i
		}
		return n + hi - lo
	}, add, tsys.ByValue()) // a false claim
)

// TestLoopFollowsTheRuleAboutArguments: a registered loop's pieces cross
// nodes under Register's rule. A loop whose environment holds a slice
// stays on its node unless declared ByValue, and says why; one that
// writes through a falsely claimed ByValue environment shows its wrong
// answer under the check of copies on one node, as it would on a cluster:
// its pieces lent (the first half of a Grain split, forked) write a copy.
func TestLoopFollowsTheRuleAboutArguments(t *testing.T) {
	t.Setenv("TSYS_CHECK_COPIES", "0") // it tests the runtime without the check
	if tsys.LoopWhyLocal(sliceSum) != nil || tsys.LoopWhyLocal(sliceFill) == nil {
		t.Fatalf("why local: read-only ByValue %v, writing without ByValue %v", tsys.LoopWhyLocal(sliceSum), tsys.LoopWhyLocal(sliceFill))
	}
	if err := tsys.LoopWhyLocal(sliceFill); err == nil || !strings.Contains(err.Error(), "tsys.ByValue()") {
		t.Fatalf("WhyLocal: %v", err)
	}
	xs := make([]int, 10_000)
	call := func(rt *tsys.Runtime, l *tsys.Loop[[]int, int]) (int, error) {
		n, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int { return l.Call(c, xs, 0, len(xs), tsys.Grain(len(xs)/4)) })
		return n, err
	}
	for _, opts := range [][]tsys.Option{nil, {tsys.CheckCopies()}} {
		// One worker: on two, a thief copying a piece of the falsely
		// claimed loop reads the memory its owner writes, a data race
		// that is the point of the claim being false, and that the race
		// detector rightly reports.
		rt := tsys.New(append(opts, tsys.Workers(1))...)
		for i := range xs {
			xs[i] = 1
		}
		if n, err := call(rt, sliceSum); err != nil || n != len(xs) {
			t.Fatalf("%v: the sum is %d, %v", opts, n, err)
		}
		// The loop that stays home fills the caller's slice, copies or not.
		for i := range xs {
			xs[i] = -1
		}
		call(rt, sliceFill)
		if xs[1] != 1 || xs[len(xs)-1] != len(xs)-1 {
			t.Fatalf("%v: a loop that stays on its node left %d, %d at the ends", opts, xs[1], xs[len(xs)-1])
		}
		for i := range xs {
			xs[i] = -1
		}
		call(rt, sliceFillClaimed)
		if filled := xs[1] == 1; filled == (opts != nil) {
			t.Fatalf("%v: the falsely claimed loop filled the caller's slice: %v", opts, filled)
		}
	}
}

// TestFewCostlyIterationsRunTogether: a loop of two iterations on two
// workers gives the second to the hungry worker at once, instead of
// running the first before anything can be cut. Each iteration waits
// (boundedly) for the other to begin: run one after the other, the first
// waits in vain. The other worker is made busy and idle again first, so
// that it is hungry when the loop begins; a few attempts allow for its
// being between states at that moment.
func TestFewCostlyIterationsRunTogether(t *testing.T) {
	rt := tsys.New(tsys.Workers(2))
	together := false
	for attempt := 0; attempt < 5 && !together; attempt++ {
		together = do(t, rt, func(c *tsys.Ctx) bool {
			warm := joinProbe.Fork(c, 0)
			for deadline := time.Now().Add(5 * time.Second); !warm.Ready() && time.Now().Before(deadline); {
				time.Sleep(100 * time.Microsecond) // until the other worker took it
			}
			warm.Join(c)
			var begun [2]atomic.Bool
			return tsys.Fold(c, 0, 2, func() bool { return true }, func(_ *tsys.Ctx, lo, hi int, met bool) bool {
				for i := lo; i < hi; i++ {
					begun[i].Store(true)
					other := &begun[1-i]
					for deadline := time.Now().Add(5 * time.Second); !other.Load() && time.Now().Before(deadline); {
						time.Sleep(100 * time.Microsecond)
					}
					met = met && other.Load()
				}
				return met
			}, func(a, b bool) bool { return a && b })
		})
	}
	if !together {
		t.Fatal("in 5 attempts, the two iterations of a loop on 2 workers never ran at once")
	}
}

var joinProbe = tsys.Register("test.join-probe", func(*tsys.Ctx, int) int { return 0 })

// TestLoopRefusesWhatItCannotRun: a range of more than math.MaxInt
// iterations, and a loop called without a task's Ctx, fail with a message
// that says what to do.
func TestLoopRefusesWhatItCannotRun(t *testing.T) {
	_, _, err := tsys.Do(context.Background(), tsys.New(tsys.Workers(1)), func(c *tsys.Ctx) int {
		tsys.For(c, math.MinInt, math.MaxInt, func(*tsys.Ctx, int, int) {})
		return 0
	})
	if err == nil || !strings.Contains(err.Error(), "more than math.MaxInt iterations") {
		t.Errorf("a loop over [MinInt, MaxInt): %v", err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "run the form inside tsys.Do") {
			t.Errorf("a loop without a Ctx: %v", r)
		}
	}()
	tsys.For(nil, 0, 10, func(*tsys.Ctx, int, int) {})
}

// TestFoldMakesAResultPerPiece: Fold's identity is called once per piece
// the runtime makes, not per chunk: far fewer times than the body, whose
// result it folds into.
func TestFoldMakesAResultPerPiece(t *testing.T) {
	var identities, calls atomic.Int64
	const n, bins = 2_000_000, 1000
	counts := do(t, tsys.New(tsys.Workers(2)), func(c *tsys.Ctx) []int {
		return tsys.Fold(c, 0, n, func() []int {
			identities.Add(1)
			return make([]int, bins)
		}, func(_ *tsys.Ctx, lo, hi int, acc []int) []int {
			calls.Add(1)
			for i := lo; i < hi; i++ {
				acc[i*31%bins]++
			}
			return acc
		}, func(a, b []int) []int {
			for i := range a {
				a[i] += b[i]
			}
			return a
		})
	})
	for i, k := range counts {
		if k != n/bins {
			t.Fatalf("bin %d counted %d, want %d", i, k, n/bins)
		}
	}
	if identities.Load() > calls.Load() || calls.Load() > 2 && identities.Load() == calls.Load() {
		t.Fatalf("%d results made for %d calls of the body", identities.Load(), calls.Load())
	}
	if got := do(t, tsys.New(), func(c *tsys.Ctx) []int {
		return tsys.Fold(c, 5, 5, func() []int { return []int{42} },
			func(_ *tsys.Ctx, _, _ int, acc []int) []int { panic("an empty range runs no body") },
			func(a, b []int) []int { panic("an empty range combines nothing") })
	}); !slices.Equal(got, []int{42}) {
		t.Fatalf("an empty Fold gave %v, want identity()", got)
	}
}

// TestIdleWorkersDoNotSplitALoopToPieces: workers idle when a loop begins
// get a piece each, and no more: under inline.Everything every other
// worker is idle all the time, and a piece forked for them that became a
// plain call must not split itself again at once, down to pieces of one
// iteration.
func TestIdleWorkersDoNotSplitALoopToPieces(t *testing.T) {
	const n = 1 << 20
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = int64(i)
	}
	for _, pol := range []inline.Policy{inline.Everything(), inline.Default()} {
		var calls atomic.Int64
		sum := do(t, tsys.New(tsys.Workers(4), tsys.Inline(pol)), func(c *tsys.Ctx) int64 {
			return tsys.Fold(c, 0, n, func() int64 { return 0 }, func(_ *tsys.Ctx, lo, hi int, s int64) int64 {
				calls.Add(1)
				for _, x := range xs[lo:hi] {
					s += x
				}
				return s
			}, func(a, b int64) int64 { return a + b })
		})
		if sum != int64(n)*(n-1)/2 {
			t.Fatalf("%v: sum %d", pol, sum)
		}
		if calls.Load() > n/16 {
			t.Errorf("%v, 4 workers: %d calls of the body for %d cheap iterations", pol, calls.Load(), n)
		}
	}
}
