package tsys_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/tsys"
)

// PairOf: Pair with functions and their arguments, at a fork's price. Its
// answers under every policy, the functions it takes and refuses, and the
// name a failure in it gets.

func pairOfSum(c *tsys.Ctx, n *sumNode) int64 {
	if n == nil {
		return 0
	}
	l, r := tsys.PairOf(c, pairOfSum, n.L, pairOfSum, n.R)
	return n.V + l + r
}

// span is a range of leaves, PairOf's argument in the range sum.
type span struct{ lo, hi int }

func pairOfCount(c *tsys.Ctx, s span) int {
	if s.hi-s.lo == 1 {
		return s.lo % 3
	}
	mid := s.lo + (s.hi-s.lo)/2
	a, b := tsys.PairOf(c, pairOfCount, span{s.lo, mid}, pairOfCount, span{mid, s.hi})
	return a + b
}

func TestPairOfMatchesSerial(t *testing.T) {
	checkNoLeak(t)
	var next int64
	tree := makeTree(12, &next)
	wantTree := serialSum(tree)
	const leaves = 100_003
	wantCount := 0
	for i := range leaves {
		wantCount += i % 3
	}
	for _, w := range []int{1, 2} {
		for _, pol := range formPolicies {
			rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
			got, st, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int64 { return pairOfSum(c, tree) })
			if err != nil || got != wantTree {
				t.Errorf("workers=%d inline=%v: PairOf's tree sum = %d, %v; want %d", w, pol, got, err, wantTree)
			}
			if st.Spawns == 0 {
				t.Errorf("workers=%d inline=%v: no spawn counted; want one per PairOf", w, pol)
			}
			n, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int { return pairOfCount(c, span{0, leaves}) })
			if err != nil || n != wantCount {
				t.Errorf("workers=%d inline=%v: PairOf's range count = %d, %v; want %d", w, pol, n, err, wantCount)
			}
		}
	}
}

// The functions PairOf takes: declared ones of any two signatures, and a
// generic one's instances.

func itoa(_ *tsys.Ctx, n int) string { return fmt.Sprint(n) }

func double[T int | float64](_ *tsys.Ctx, x T) T { return 2 * x }

type adder int

func (a adder) add(_ *tsys.Ctx, x int) int { return int(a) + x }

func TestPairOfTakesDeclaredFunctions(t *testing.T) {
	for _, w := range []int{1, 2} {
		for _, pol := range formPolicies {
			rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
			got, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) string {
				s, f := tsys.PairOf(c, itoa, 42, double[float64], 1.5)
				n, m := tsys.PairOf(c, double[int], 3, double[int], 4)
				return fmt.Sprint(s, " ", f, " ", n+m)
			})
			if err != nil || got != "42 3 14" {
				t.Errorf("workers=%d inline=%v: %q, %v; want \"42 3 8\"", w, pol, got, err)
			}
		}
	}
}

// TestPairOfRefusesClosures: a func literal, capturing or not, and a
// method value make PairOf panic every time, whatever the load, naming
// the argument and the remedy; so does a nil function.
func TestPairOfRefusesClosures(t *testing.T) {
	outer := 3
	cases := []struct {
		name string
		root func(c *tsys.Ctx) int
		want string
	}{
		{"a capturing func literal", func(c *tsys.Ctx) int {
			a, b := tsys.PairOf(c, pairOfCount, span{0, 8}, func(_ *tsys.Ctx, s span) int { return pairOfCount(c, s) + outer }, span{8, 16})
			return a + b
		}, "tsys.PairOf: g is a func literal"},
		{"a func literal that captures nothing", func(c *tsys.Ctx) int {
			a, b := tsys.PairOf(c, func(c *tsys.Ctx, s span) int { return pairOfCount(c, s) }, span{0, 8}, pairOfCount, span{8, 16})
			return a + b
		}, "tsys.PairOf: f is a func literal"},
		{"a method value", func(c *tsys.Ctx) int {
			a, b := tsys.PairOf(c, adder(outer).add, 1, itoa, 2)
			return a + len(b)
		}, "tsys.PairOf: f is a method value"},
		{"a nil function", func(c *tsys.Ctx) int {
			var nilFunc func(*tsys.Ctx, span) int
			a, b := tsys.PairOf(c, pairOfCount, span{0, 8}, nilFunc, span{8, 16})
			return a + b
		}, "tsys.PairOf: g is a nil function"},
	}
	for _, tc := range cases {
		for _, w := range []int{1, 2} {
			for _, pol := range formPolicies {
				rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
				for i := range 10 {
					_, _, err := doBounded(t, rt, tc.root)
					var tp *tsys.TaskPanic
					if !errors.As(err, &tp) || !strings.Contains(fmt.Sprint(tp.Value), tc.want) ||
						!strings.Contains(fmt.Sprint(tp.Value), "tsys.Pair") {
						t.Fatalf("%s, workers=%d inline=%v rep %d: %v; want a TaskPanic saying %q and naming tsys.Pair as the remedy",
							tc.name, w, pol, i, err, tc.want)
					}
				}
			}
		}
	}
}

// pairOfFailing fails, by the function it is given, at the leaf 40 of
// its range.
type failingSpan struct {
	lo, hi int
	fail   func(c *tsys.Ctx)
}

func pairOfFailing(c *tsys.Ctx, s failingSpan) int {
	if s.hi-s.lo == 1 {
		if s.lo == 40 {
			s.fail(c)
		}
		return 1
	}
	mid := s.lo + (s.hi-s.lo)/2
	a, b := tsys.PairOf(c, pairOfFailing, failingSpan{s.lo, mid, s.fail}, pairOfFailing, failingSpan{mid, s.hi, s.fail})
	return a + b
}

// TestPairOfFailuresNameIt: a failure in PairOf's halves names
// "tsys.PairOf", whether the half ran here or on a thief, as a TaskError
// and as a TaskPanic.
func TestPairOfFailuresNameIt(t *testing.T) {
	errBoom := errors.New("boom")
	failers := map[string]func(c *tsys.Ctx){
		"Fail":  func(c *tsys.Ctx) { c.Fail(errBoom) },
		"panic": func(*tsys.Ctx) { panic(errBoom) },
	}
	for how, fail := range failers {
		for _, w := range []int{1, 2} {
			for _, pol := range formPolicies {
				rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
				for i := range 20 {
					_, _, err := doBounded(t, rt, func(c *tsys.Ctx) int { return pairOfFailing(c, failingSpan{0, 64, fail}) })
					var te *tsys.TaskError
					var tp *tsys.TaskPanic
					task := ""
					switch {
					case errors.As(err, &te):
						task = te.Task
					case errors.As(err, &tp):
						task = tp.Task
					default:
						t.Fatalf("by %s: %v", how, err)
					}
					if task != "tsys.PairOf" || !errors.Is(err, errBoom) {
						t.Fatalf("by %s, workers=%d inline=%v rep %d: names task %q (%v); want tsys.PairOf", how, w, pol, i, task, err)
					}
				}
			}
		}
	}
}
