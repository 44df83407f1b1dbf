package tsys_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// The forms of the surface docs/API.md designs: one way for any body to
// fail (Ctx.Fail), Pair's two values, a task with no result, a
// registered loop of Fold's shape, and the span in a run's Stats.

var errForm = errors.New("the body failed")

type sumNode struct {
	L, R *sumNode
	V    int64
}

func makeTree(depth int, next *int64) *sumNode {
	*next++
	n := &sumNode{V: *next}
	if depth > 0 {
		n.L = makeTree(depth-1, next)
		n.R = makeTree(depth-1, next)
	}
	return n
}

func serialSum(n *sumNode) int64 {
	if n == nil {
		return 0
	}
	return n.V + serialSum(n.L) + serialSum(n.R)
}

func pairSum(c *tsys.Ctx, n *sumNode) int64 {
	if n == nil {
		return 0
	}
	l, r := tsys.Pair(c,
		func(c *tsys.Ctx) int64 { return pairSum(c, n.L) },
		func(c *tsys.Ctx) int64 { return pairSum(c, n.R) })
	return n.V + l + r
}

// formPolicies are the inlining formPolicies the forms must give one answer
// under: every spawn a task, every spawn a call, and the default's mix.
var formPolicies = []inline.Policy{inline.Never(), inline.Everything(), inline.Default()}

func TestPairReturnsBothValues(t *testing.T) {
	checkNoLeak(t)
	var next int64
	tree := makeTree(12, &next)
	want := serialSum(tree)
	for _, w := range []int{1, 2} {
		for _, pol := range formPolicies {
			rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
			got, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int64 { return pairSum(c, tree) })
			if err != nil || got != want {
				t.Errorf("workers=%d inline=%v: Pair's tree sum = %d, %v; want %d", w, pol, got, err, want)
			}
		}
	}
}

// TestPairKeepsTypes: Pair's two results have their own types.
func TestPairKeepsTypes(t *testing.T) {
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	got, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) string {
		n, s := tsys.Pair(c, func(*tsys.Ctx) int { return 42 }, func(*tsys.Ctx) string { return "x" })
		return fmt.Sprintf("%d %s", n, s)
	})
	if err != nil || got != "42 x" {
		t.Errorf("Pair = %q, %v; want \"42 x\"", got, err)
	}
}

var (
	actionHits  [64]atomic.Int64
	markAll     *tsys.Task[int, struct{}]
	actionCalls atomic.Int64
)

func init() {
	// markAll marks the indices of [0, n) as a tree of actions: a task
	// with no result, forked and joined as any other.
	markAll = tsys.RegisterAction("tsys_test.markAll", func(c *tsys.Ctx, span int) {
		actionCalls.Add(1)
		lo, hi := span>>8, span&0xff
		if hi-lo == 1 {
			actionHits[lo].Add(1)
			return
		}
		mid := (lo + hi) / 2
		f := markAll.Fork(c, lo<<8|mid)
		markAll.Call(c, mid<<8|hi)
		f.Join(c)
	})
}

func TestRegisterActionRunsEveryLeafOnce(t *testing.T) {
	checkNoLeak(t)
	for _, w := range []int{1, 2} {
		for _, pol := range formPolicies {
			for i := range actionHits {
				actionHits[i].Store(0)
			}
			rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
			if _, _, err := tsys.Run(context.Background(), rt, markAll, 0<<8|len(actionHits)); err != nil {
				t.Fatalf("workers=%d inline=%v: %v", w, pol, err)
			}
			for i := range actionHits {
				if n := actionHits[i].Load(); n != 1 {
					t.Errorf("workers=%d inline=%v: leaf %d ran %d times, want once", w, pol, i, n)
				}
			}
		}
	}
	if markAll.WhyLocal() != nil {
		t.Errorf("an action over an int stays on its node: %v", markAll.WhyLocal())
	}
}

// sumSquares is a registered loop of Fold's shape; its environment is
// the value added to every square.
var sumSquares = tsys.RegisterFold("tsys_test.sumSquares",
	func() int64 { return 0 },
	func(_ *tsys.Ctx, add int64, lo, hi int, acc int64) int64 {
		for i := lo; i < hi; i++ {
			acc += int64(i)*int64(i) + add
		}
		return acc
	},
	func(a, b int64) int64 { return a + b })

// emptyIsSeven's identity is not zero, so that an empty range shows
// which it returns.
var emptyIsSeven = tsys.RegisterFold("tsys_test.emptyIsSeven",
	func() int64 { return 7 },
	func(_ *tsys.Ctx, _ struct{}, lo, hi int, acc int64) int64 { return acc + int64(hi-lo) },
	func(a, b int64) int64 { return a + b - 7 })

var sumSquaresRoot = tsys.Register("tsys_test.sumSquaresRoot", func(c *tsys.Ctx, n int) int64 {
	return sumSquares.Call(c, 3, 0, n)
})

func TestRegisterFoldMatchesSerial(t *testing.T) {
	checkNoLeak(t)
	const n = 200_000
	var want int64
	for i := range n {
		want += int64(i)*int64(i) + 3
	}
	for _, w := range []int{1, 2} {
		for _, opts := range [][]tsys.LoopOption{nil, {tsys.Grain(1000)}, {tsys.Factoring}} {
			rt := tsys.New(tsys.Workers(w))
			got, _, err := tsys.Run(context.Background(), rt, sumSquaresRoot, n)
			if err != nil || got != want {
				t.Errorf("workers=%d opts=%d: %d, %v; want %d", w, len(opts), got, err, want)
			}
			got, _, err = tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int64 { return sumSquares.Call(c, 3, 0, n, opts...) })
			if err != nil || got != want {
				t.Errorf("workers=%d opts=%d, from Do: %d, %v; want %d", w, len(opts), got, err, want)
			}
		}
	}
	if err := tsys.LoopWhyLocal(sumSquares); err != nil {
		t.Errorf("a loop over an int64 environment may cross nodes: %v", err)
	}
}

func TestRegisterFoldEmptyRangeIsIdentity(t *testing.T) {
	rt := tsys.New(tsys.Workers(2))
	got, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) [2]int64 {
		return [2]int64{emptyIsSeven.Call(c, struct{}{}, 5, 5), emptyIsSeven.Call(c, struct{}{}, 0, 1000, tsys.Grain(10))}
	})
	if err != nil || got != [2]int64{7, 1007} {
		t.Errorf("empty range and [0,1000) = %v, %v; want [7 1007]", got, err)
	}
}

// failForms are the forms a body fails the job from, each failing with
// errForm through Ctx.Fail at its leaf.
var failForms = []struct {
	name string
	run  func(ctx context.Context, rt *tsys.Runtime) error
}{
	{"task", func(ctx context.Context, rt *tsys.Runtime) error {
		_, _, err := tsys.Run(ctx, rt, failingTask, 10)
		return err
	}},
	{"action", func(ctx context.Context, rt *tsys.Runtime) error {
		_, _, err := tsys.Run(ctx, rt, failingAction, 10)
		return err
	}},
	{"Do", func(ctx context.Context, rt *tsys.Runtime) error {
		_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int { c.Fail(errForm); return 0 })
		return err
	}},
	{"Both, first", func(ctx context.Context, rt *tsys.Runtime) error {
		_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
			tsys.Both(c, func(c *tsys.Ctx) { c.Fail(errForm) }, func(*tsys.Ctx) {})
			return 0
		})
		return err
	}},
	{"Both, second", func(ctx context.Context, rt *tsys.Runtime) error {
		_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
			tsys.Both(c, func(*tsys.Ctx) {}, func(c *tsys.Ctx) { c.Fail(errForm) })
			return 0
		})
		return err
	}},
	{"Pair", func(ctx context.Context, rt *tsys.Runtime) error {
		_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
			a, b := tsys.Pair(c, func(*tsys.Ctx) int { return 1 }, func(c *tsys.Ctx) int { c.Fail(errForm); return 2 })
			return a + b
		})
		return err
	}},
	{"For", func(ctx context.Context, rt *tsys.Runtime) error {
		_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
			tsys.For(c, 0, 10_000, func(c *tsys.Ctx, lo, hi int) {
				if lo <= 5000 && 5000 < hi {
					c.Fail(errForm)
				}
			}, tsys.Grain(100))
			return 0
		})
		return err
	}},
	{"Fold", func(ctx context.Context, rt *tsys.Runtime) error {
		_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
			return tsys.Fold(c, 0, 10_000, func() int { return 0 }, func(c *tsys.Ctx, lo, hi, acc int) int {
				if lo <= 5000 && 5000 < hi {
					c.Fail(errForm)
				}
				return acc + hi - lo
			}, func(a, b int) int { return a + b }, tsys.Grain(100))
		})
		return err
	}},
	{"RegisterFold", func(ctx context.Context, rt *tsys.Runtime) error {
		_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int64 { return failingLoop.Call(c, 5000, 0, 10_000, tsys.Grain(100)) })
		return err
	}},
}

var (
	failingTask   *tsys.Task[int, int]
	failingAction *tsys.Task[int, struct{}]
	failingLoop   = tsys.RegisterFold("tsys_test.failingLoop", func() int64 { return 0 },
		func(c *tsys.Ctx, at int, lo, hi int, acc int64) int64 {
			if lo <= at && at < hi {
				c.Fail(errForm)
			}
			return acc + int64(hi-lo)
		}, func(a, b int64) int64 { return a + b })
)

func init() {
	failingTask = tsys.Register("tsys_test.failingTask", func(c *tsys.Ctx, n int) int {
		if n == 0 {
			c.Fail(errForm)
		}
		f := failingTask.Fork(c, n-1)
		return failingTask.Call(c, n/2) + f.Join(c)
	})
	failingAction = tsys.RegisterAction("tsys_test.failingAction", func(c *tsys.Ctx, n int) {
		if n == 0 {
			c.Fail(errForm)
		}
		f := failingAction.Fork(c, n-1)
		failingAction.Call(c, n/2)
		f.Join(c)
	})
}

// TestFailFromEveryForm: Ctx.Fail fails the job from every form a body
// runs in, and the run's error is a *TaskError that reaches the body's
// error and names the function that failed.
func TestFailFromEveryForm(t *testing.T) {
	checkNoLeak(t)
	for _, form := range failForms {
		for _, w := range []int{1, 2} {
			for _, pol := range formPolicies {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				err := form.run(ctx, tsys.New(tsys.Workers(w), tsys.Inline(pol)))
				cancel()
				what := fmt.Sprintf("%s, workers=%d inline=%v", form.name, w, pol)
				if !errors.Is(err, errForm) {
					t.Errorf("%s: the run's error %v does not reach the body's", what, err)
					continue
				}
				var te *tsys.TaskError
				if !errors.As(err, &te) {
					t.Errorf("%s: the run's error is a %T, want a *tsys.TaskError", what, err)
					continue
				}
				if te.Task == "" || !strings.Contains(te.Func, "tsys_test.") {
					t.Errorf("%s: the TaskError names task %q, function %q: want both, the function the test's", what, te.Task, te.Func)
				}
			}
		}
	}
}

// TestFailNilIsAPanic: Fail(nil) is a programming error, which fails the
// run as a panic that says what to do.
func TestFailNilIsAPanic(t *testing.T) {
	rt := tsys.New(tsys.Workers(1))
	_, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int { c.Fail(nil); return 0 })
	var tp *tsys.TaskPanic
	if !errors.As(err, &tp) || !strings.Contains(fmt.Sprint(tp.Value), "return normally") {
		t.Errorf("Fail(nil): %v; want a *tsys.TaskPanic that says to return normally", err)
	}
}

// TestStatsHoldWorkAndSpan: with MeasureWorkSpan, a run's own Stats
// carry its work and span, the work at least the span.
func TestStatsHoldWorkAndSpan(t *testing.T) {
	var next int64
	tree := makeTree(10, &next)
	rt := tsys.New(tsys.Workers(2), tsys.MeasureWorkSpan())
	_, st, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int64 { return pairSum(c, tree) })
	if err != nil {
		t.Fatal(err)
	}
	if st.SpanNanos <= 0 || st.WorkNanos < st.SpanNanos {
		t.Errorf("work %d ns, span %d ns: want a span > 0 and the work at least the span", st.WorkNanos, st.SpanNanos)
	}
	_, st, _ = tsys.Do(context.Background(), tsys.New(tsys.Workers(2)), func(c *tsys.Ctx) int64 { return pairSum(c, tree) })
	if st.SpanNanos != 0 || st.WorkNanos != 0 {
		t.Errorf("without MeasureWorkSpan: work %d, span %d; want 0 and 0", st.WorkNanos, st.SpanNanos)
	}
}
