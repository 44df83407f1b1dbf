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
	task     *Task[span[E], R]
	shape    shape[E, R]
	identity func() R
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
// under TSYS_CHECK_COPIES=1 for every piece: keep it small. A loop over data in
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
	l := &Loop[E, R]{identity: identity}
	first := func(c *Ctx, env E, lo, hi int) R { return body(c, env, lo, hi, identity()) }
	l.shape = shape[E, R]{first: first, next: body, combine: combine, task: func() *Task[span[E], R] { return l.task }, form: name}
	l.task = Register(name, l.run, opts...)
	l.shape.lendable = l.task.kind.Lendable()
	return l
}

// Call runs the loop over [lo, hi) from inside a task and returns the
// combined result: identity() for an empty range. Its pieces run on this
// node's workers and, when the loop may cross nodes, on other nodes too.
func (l *Loop[E, R]) Call(c *Ctx, env E, lo, hi int, opts ...LoopOption) R {
	if lo >= hi {
		return l.identity()
	}
	return l.run(c, span[E]{Env: env, Lo: int64(lo), Hi: int64(hi), Plan: planOf(c, opts)})
}

// span is a piece of a loop's range, [Lo, Hi), with the environment and
// how it is split: the argument of a loop's tasks. Its fields are
// exported for the codec, which carries a piece to another node.
type span[E any] struct {
	Env    E
	Lo, Hi int64
	Plan   plan
}

func (l *Loop[E, R]) run(c *Ctx, s span[E]) R {
	return runSplit(c, &l.shape, s)
}
