package tsys

// Loop is a registered parallel loop over a range of indices, whose
// pieces may run on other nodes: the flat shape of work (Siegell's DOALL
// loops, rayon's par_iter, Cilk's cilk_for) beside the recursive one.
// Its body gets a whole piece [lo, hi) of the range and an environment
// (a scene, a seed) and returns the piece's result; the results of
// adjacent pieces are combined in index order. How the range is split is
// the runtime's business (split.go): pieces are cut off as other workers,
// or other nodes, become hungry, and a worker with no thieves about runs
// its range as one plain loop.
//
// A loop that never leaves its node needs no registration: see For and
// Fold, whose bodies are closures.
type Loop[E, R any] struct {
	task     *Task[Span[E], R]
	shape    shape[E, R]
	identity func() R // RegisterFold's; nil for RegisterRange's zero value
}

// RegisterFold makes a parallel loop under a stable name whose pieces may
// run on other nodes: Fold's shape, with an environment (a scene, a seed,
// parameters) that travels with every piece. Register's rules and options
// hold: its pieces cross nodes when its environment and result may, and
// its body fails the job with Ctx.Fail. Each piece starts from identity()
// and body(c, env, lo, hi, acc) folds the iterations [lo, hi) into acc;
// combine(a, b) merges the results of two adjacent pieces, a before b.
// combine must be associative (the split varies from run to run; see
// Grain for a fixed one) but need not be commutative, so results keep
// index order. Loop.Call runs it from inside a task; a job whose root is
// a loop registers a root task that calls it.
//
// The environment is copied for every piece lent to another node, and
// under CheckCopies for every piece: keep it small. A loop over data in
// this process's memory is a closure loop (For, Fold), which stays on its
// node.
//
//	var Integral = tsys.RegisterFold("integral",
//		func() float64 { return 0 },
//		func(_ *tsys.Ctx, h float64, lo, hi int, s float64) float64 {
//			for i := lo; i < hi; i++ {
//				x := (float64(i) + 0.5) * h
//				s += 4 / (1 + x*x) * h
//			}
//			return s
//		},
//		func(a, b float64) float64 { return a + b })
func RegisterFold[E, R any](name string, identity func() R, body func(c *Ctx, env E, lo, hi int, acc R) R, combine func(a, b R) R, opts ...TaskOption) *Loop[E, R] {
	if identity == nil || body == nil || combine == nil {
		panic("tsys.RegisterFold: a loop needs an identity, a body and a combine function")
	}
	noteTaskFunc(body, name)
	l := newLoop(name, func(c *Ctx, env E, lo, hi int) R { return body(c, env, lo, hi, identity()) }, body, combine, opts)
	l.identity = identity
	return l
}

// newLoop registers a loop whose pieces start with first and go on with
// next, combined by combine.
func newLoop[E, R any](name string, first func(c *Ctx, env E, lo, hi int) R, next func(c *Ctx, env E, lo, hi int, acc R) R, combine func(a, b R) R, opts []TaskOption) *Loop[E, R] {
	l := &Loop[E, R]{}
	l.shape = shape[E, R]{first: first, next: next, combine: combine, task: l.Task, form: name}
	l.task = Register(name, l.run, opts...)
	l.shape.lendable = l.task.kind.Lendable()
	return l
}

// Call runs the loop over [lo, hi) from inside a task and returns the
// combined result: identity() for an empty range. Its pieces run on this
// node's workers and, when the loop may cross nodes, on other nodes too.
func (l *Loop[E, R]) Call(c *Ctx, env E, lo, hi int, opts ...LoopOption) R {
	if lo >= hi && l.identity != nil {
		return l.identity()
	}
	return l.run(c, l.Range(env, lo, hi, opts...))
}

// Span is a piece of a loop's range, [Lo, Hi), with the environment and
// how it is split: the argument of a loop's tasks, made by Loop.Range.
//
// Deprecated: a program has no need of it since Loop.Call; it becomes the
// runtime's own.
type Span[E any] struct {
	Env    E
	Lo, Hi int64
	Plan   Plan
}

// RegisterRange makes a parallel loop under a stable name, as Register
// does for a task, with the same options: its pieces cross nodes when its
// environment and result may (Register's rule). body(c, env, lo, hi) runs
// the iterations [lo, hi) and returns their result; combine(a, b) merges
// the results of two adjacent pieces, a before b. combine must be
// associative (the split varies from run to run; see Grain for a fixed
// one) but need not be commutative, so results keep index order.
//
// The environment travels with every piece lent to another node, and under
// CheckCopies is copied for every piece: keep it small (a scene, a seed,
// parameters). A loop over data in this process's memory is a closure
// loop (Reduce, For, Map), which stays on its node.
//
//	var Sum = tsys.RegisterRange("sum",
//		func(c *tsys.Ctx, _ struct{}, lo, hi int) float64 {
//			s := 0.0
//			for i := lo; i < hi; i++ {
//				s += f(i)
//			}
//			return s
//		},
//		func(a, b float64) float64 { return a + b })
//
// Deprecated: use RegisterFold, Fold's shape: its identity is a function,
// as every reduction's of this package, and its body folds into the
// piece's result.
func RegisterRange[E, R any](name string, body func(c *Ctx, env E, lo, hi int) R, combine func(a, b R) R, opts ...TaskOption) *Loop[E, R] {
	if body == nil || combine == nil {
		panic("tsys.RegisterRange: a loop needs a body and a combine function")
	}
	noteTaskFunc(body, name)
	next := func(c *Ctx, env E, lo, hi int, acc R) R { return combine(acc, body(c, env, lo, hi)) }
	return newLoop(name, body, next, combine, opts)
}

// RegisterLoop makes a parallel loop whose body is called once per index,
// body(c, env, i), the results combined as RegisterRange's are. It is
// sugar over RegisterRange: each call costs a few nanoseconds (two
// indirect calls, the body's and combine's), which is nothing beside an
// iteration that renders a row and much beside one that adds a number.
// bench/README.md ("Loops") gives the figure; write the body over a range
// when iterations are cheap.
//
// Deprecated: use RegisterFold, whose body runs a range of iterations.
func RegisterLoop[E, R any](name string, body func(c *Ctx, env E, i int) R, combine func(a, b R) R, opts ...TaskOption) *Loop[E, R] {
	if body == nil || combine == nil {
		panic("tsys.RegisterLoop: a loop needs a body and a combine function")
	}
	return RegisterRange(name, func(c *Ctx, env E, lo, hi int) R {
		acc := body(c, env, lo)
		for i := lo + 1; i < hi; i++ {
			acc = combine(acc, body(c, env, i))
		}
		return acc
	}, combine, opts...)
}

// Run runs the loop over [lo, hi) from inside a task and returns the
// combined result (R's zero value for an empty range).
//
// Deprecated: use Call, the same call: Run is the name of a job's start.
func (l *Loop[E, R]) Run(c *Ctx, env E, lo, hi int, opts ...LoopOption) R {
	return l.run(c, l.Range(env, lo, hi, opts...))
}

// Task is the loop's task, for running a loop as a job's root:
//
//	tsys.Run(ctx, rt, loop.Task(), loop.Range(env, 0, n))
//
// Deprecated: register a root task that calls the loop (Loop.Call).
func (l *Loop[E, R]) Task() *Task[Span[E], R] { return l.task }

// Range is the whole range [lo, hi) of the loop, as the argument of Task.
//
// Deprecated: register a root task that calls the loop (Loop.Call).
func (l *Loop[E, R]) Range(env E, lo, hi int, opts ...LoopOption) Span[E] {
	return Span[E]{Env: env, Lo: int64(lo), Hi: int64(hi), Plan: planOf(opts)}
}

func (l *Loop[E, R]) run(c *Ctx, s Span[E]) R {
	return runSplit(c, &l.shape, s)
}
