package tsys

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
)

// Closures: parallel work that stays on its node.
//
// A registered task crosses nodes as its name and its encoded argument; a
// closure cannot be sent, so the functions of this file run their pieces
// as tasks of this node's workers only. They need no registration, and a
// closure may capture anything, including memory the loop writes (a slice
// to fill, a counter per piece). Where a loop's work should spread over a
// cluster, register it (RegisterFold) with an environment that can be
// copied.

// Both runs f and g, possibly in parallel, and returns when both have
// returned: rayon's join for closures that return nothing, TBB's
// parallel_invoke (Pair returns two values). It asks the inlining policy
// first, as a Fork does (Ctx.AllowCCall): while enough tasks are ready, f
// and then g run here as plain calls, and no task is made. Otherwise g is
// forked, so an idle worker of this node may take it meanwhile, f runs
// here and now, and g runs here after f if nobody took it. g never leaves
// the node. Once the job has failed or been cancelled, g does not start.
//
// What it costs. g escapes to the heap, since it may become a task, and
// Go makes a closure before the function it is passed to runs: every call
// makes g, and every variable g writes, on the heap, even when both run
// here as plain calls, where a registered task's Fork makes nothing. So a
// recursion that splits with Both down to tiny leaves, with no cutoff,
// pays for allocations that outweigh its leaves' work, where the same
// recursion with Fork pays for none; one whose leaves allocate anyway (a
// merge sort into new memory) hides most of them (bench/README.md, "The
// closure forms as users write them", has the figures). Two ways
// back to a fork's time: a Fork of a registered task, which makes
// nothing; or, with no cutoff to write, go generate (cmd/tsysclone),
// which writes the cutoff in the clone of each function the program
// calls by its clone's name (sum as sumClone), whose forms ask first and
// make their closures only on a no. The cutoff it writes is, by hand:
//
//	func sum(c *tsys.Ctx, t *Tree) int64 {
//		if t == nil {
//			return 0
//		}
//		if c.AllowCCall() {
//			return t.V + sum(c, t.L) + sum(c, t.R)
//		}
//		var l, r int64
//		tsys.Both(c,
//			func(c *tsys.Ctx) { l = sum(c, t.L) },
//			func(c *tsys.Ctx) { r = sum(c, t.R) })
//		return t.V + l + r
//	}
func Both(c *Ctx, f, g func(c *Ctx)) {
	needCtx(c, formBoth)
	needFunc(f == nil, formBoth, "f")
	needFunc(g == nil, formBoth, "g")
	runBody(c, formBoth, func(c *Ctx) {
		if c.AllowCCall() {
			f(c)
			c.stopIfEnded()
			g(c)
			return
		}
		// AllowCCall's no stands until the next push: the Fork pushes.
		forked := bothTask.Fork(c, g)
		f(c)
		forked.Join(c)
	})
}

var bothTask = register("tsys.both", func(c *Ctx, g func(*Ctx)) struct{} {
	runBody(c, formBoth, g)
	return struct{}{}
}, []TaskOption{own()})

// Pair runs f and g, possibly in parallel, and returns both results:
// rayon's join. It runs as Both does: g may be taken by an idle worker of
// this node, f runs here, and both run here as plain calls while enough
// tasks are ready.
//
//	left, right := tsys.Pair(c,
//		func(c *tsys.Ctx) int { return count(c, t.L) },
//		func(c *tsys.Ctx) int { return count(c, t.R) })
//
// It costs what Both costs, less the variables g writes, which Pair
// returns instead: g is made on the heap at every call, so that a
// recursion split with Pair down to tiny leaves, with no cutoff, pays for
// an allocation per split that Fork does not make, unless go generate
// writes its cutoff (Both's doc says how).
func Pair[A, B any](c *Ctx, f func(c *Ctx) A, g func(c *Ctx) B) (A, B) {
	needCtx(c, formPair)
	needFunc(f == nil, formPair, "f")
	needFunc(g == nil, formPair, "g")
	var b B
	a := callBody(c, formPair, func(c *Ctx) A {
		if c.AllowCCall() {
			a := f(c)
			c.stopIfEnded()
			b = g(c)
			return a
		}
		forked := closureTask[B](formPair).Fork(c, g)
		a := f(c)
		b = forked.Join(c)
		return a
	})
	return a, b
}

// Do runs f as the root task of a job on rt, as Run does for a
// registered task: a way into the runtime for a program whose parallel
// work is closures (Both, Pair, For, Fold). A closure fails the job with
// Ctx.Fail. Its job stays on this node.
// Its errors, and its calls from several goroutines or from inside a
// task, are Run's; a nil ctx, rt or f is an error.
func Do[R any](ctx context.Context, rt *Runtime, f func(c *Ctx) R) (R, Stats, error) {
	var zero R
	if f == nil {
		return zero, Stats{}, errors.New("tsys.Do: nil function")
	}
	if err := checkRun("tsys.Do", ctx, rt); err != nil {
		return zero, Stats{}, err
	}
	return runTask(ctx, rt, closureTask[R](formDo), f)
}

// For runs body over [lo, hi) in pieces, in parallel, and returns when
// every piece has run: body(c, lo', hi') runs the iterations [lo', hi')
// as a plain loop. The pieces are sized by the runtime (see LoopOption).
//
// The body is called once per chunk of about 20 us of iterations, on any
// worker, and must join every Fork it makes before it returns; it gets
// its own Ctx, to use instead of one it captured. It fails the job with
// Ctx.Fail. A loop over a slice is a loop over its indices:
//
//	tsys.For(c, 0, len(xs), func(_ *tsys.Ctx, lo, hi int) {
//		for i := range xs[lo:hi] {
//			xs[lo+i] *= 2
//		}
//	})
func For(c *Ctx, lo, hi int, body func(c *Ctx, lo, hi int), opts ...LoopOption) {
	needFunc(body == nil, formFor, "body")
	reduce(c, formFor, lo, hi, struct{}{}, func(c *Ctx, lo, hi int) struct{} {
		body(c, lo, hi)
		return struct{}{}
	}, keepFirst, opts)
}

func keepFirst(a, _ struct{}) struct{} { return a }

// reduce runs a loop of closures that combines a result per chunk, as a
// body of form.
func reduce[R any](c *Ctx, form string, lo, hi int, identity R, body func(c *Ctx, lo, hi int) R, combine func(a, b R) R, opts []LoopOption) R {
	if lo >= hi {
		return identity
	}
	return runClosures(c, lo, hi, &closureLoop[R]{form: form, body: body, combine: combine}, opts)
}

// Fold reduces [lo, hi) in parallel, rayon's fold and reduce: each piece
// of [lo, hi) the runtime makes starts from identity() and body(c, lo',
// hi', acc) folds the piece's iterations [lo', hi') into acc and returns
// it; the pieces' results are combined in index order (combine(a, b), a
// before b): combine must be associative, need not be commutative, and
// identity() is its neutral element, also the result of an empty range.
// A large result (counts per bin, a slice to append to) is made once per
// piece, and the body may change acc in place: acc is the piece's own.
// The body's contract is For's.
//
//	sum := tsys.Fold(c, 0, len(xs), func() float64 { return 0 },
//		func(_ *tsys.Ctx, lo, hi int, s float64) float64 {
//			for _, x := range xs[lo:hi] {
//				s += x
//			}
//			return s
//		}, func(a, b float64) float64 { return a + b })
//
//	counts := tsys.Fold(c, 0, len(xs), func() []int { return make([]int, bins) },
//		func(_ *tsys.Ctx, lo, hi int, counts []int) []int {
//			for _, x := range xs[lo:hi] {
//				counts[bin(x)]++
//			}
//			return counts
//		}, addCounts)
func Fold[R any](c *Ctx, lo, hi int, identity func() R, body func(c *Ctx, lo, hi int, acc R) R, combine func(a, b R) R, opts ...LoopOption) R {
	needFunc(identity == nil, formFold, "identity")
	needFunc(body == nil, formFold, "body")
	needFunc(combine == nil, formFold, "combine")
	if lo >= hi {
		return identity()
	}
	return runClosures(c, lo, hi, &closureLoop[R]{form: formFold, fold: body, identity: identity, combine: combine}, opts)
}

func runClosures[R any](c *Ctx, lo, hi int, l *closureLoop[R], opts []LoopOption) R {
	sh := closureShape(l)
	return runSplit(c, &sh, span[*closureLoop[R]]{Env: l, Lo: int64(lo), Hi: int64(hi), Plan: planOf(c, opts)})
}

// closureLoop is the environment of a loop of closures. Being a pointer,
// it keeps its loop's pieces on their node (Register's rule).
type closureLoop[R any] struct {
	form     string                            // the form, as a failure in a body names it
	body     func(c *Ctx, lo, hi int) R        // For's; nil for Fold
	fold     func(c *Ctx, lo, hi int, acc R) R // Fold's
	identity func() R                          // Fold's
	combine  func(a, b R) R
}

// closureShape is the shape of a loop of closures, for the split.
func closureShape[R any](l *closureLoop[R]) shape[*closureLoop[R], R] {
	return shape[*closureLoop[R], R]{first: firstClosure[R], next: nextClosure[R], combine: l.combine, task: loopTask[R], form: l.form}
}

func firstClosure[R any](c *Ctx, l *closureLoop[R], lo, hi int) R {
	if l.body == nil {
		return l.fold(c, lo, hi, l.identity())
	}
	return l.body(c, lo, hi)
}

func nextClosure[R any](c *Ctx, l *closureLoop[R], lo, hi int, acc R) R {
	if l.body == nil {
		return l.fold(c, lo, hi, acc)
	}
	return l.combine(acc, l.body(c, lo, hi))
}

// closureTasks holds the tasks that run closures, one per shape and
// result type, registered on first use: a generic function cannot
// register at init for every type it will be instantiated with. Their
// names only need be unique on this node, since their tasks never leave
// it, and no failure shows them: a body's failure names its form.
var closureTasks struct {
	byShape sync.Map // closureKey -> *Task[A, R]
	making  sync.Mutex
	n       int
}

type closureKey struct {
	shape string
	typ   reflect.Type
}

func registerClosureTask[A, R any](shape string, fn func(*Ctx, A) R) *Task[A, R] {
	key := closureKey{shape, reflect.TypeFor[R]()}
	if t, ok := closureTasks.byShape.Load(key); ok {
		return t.(*Task[A, R])
	}
	closureTasks.making.Lock()
	defer closureTasks.making.Unlock()
	if t, ok := closureTasks.byShape.Load(key); ok {
		return t.(*Task[A, R])
	}
	closureTasks.n++
	t := register(fmt.Sprintf("%s[%v]#%d", shape, key.typ, closureTasks.n), fn, []TaskOption{own()})
	if t.kind.Lendable() {
		// Its name depends on the order of first uses, which differs
		// between nodes: it must never be sent.
		panic("tsys: the task of a closure " + shape + " is lendable")
	}
	closureTasks.byShape.Store(key, t)
	return t
}

// loopTask is the task of the pieces of a loop of closures (For, Fold and
// the loops on them).
func loopTask[R any]() *Task[span[*closureLoop[R]], R] {
	return registerClosureTask("tsys.loop", func(c *Ctx, s span[*closureLoop[R]]) R {
		sh := closureShape(s.Env)
		return runSplit(c, &sh, s)
	})
}

// closureTask is the task that runs a closure as a body of form: Do's
// root, and Pair's second closure.
func closureTask[R any](form string) *Task[func(*Ctx) R, R] {
	return registerClosureTask(form, func(c *Ctx, f func(*Ctx) R) R { return callBody(c, form, f) })
}
