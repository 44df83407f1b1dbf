package tsys

// Loop is a registered parallel loop: body(c, env, i) for every i of a
// range, the results combined in index order. It is the flat shape of work
// (Siegell's DOALL loops, rayon's par_iter, Cilk's cilk_for) beside the
// recursive one: iterations are independent and their costs may differ.
//
// The range is halved into tasks, the first half forked (where a thief, or
// another node, may take it) and the second run on, down to Grain
// iterations run as a plain loop. Splitting is lazy in effect: once enough
// tasks are ready, load-based inlining turns the forks into plain calls, so
// a worker with no thieves about runs its range as one loop with a few
// calls in it. Env carries what the body needs (a scene, a seed); it
// crosses nodes with the range, so it must be encodable as a task
// argument is.
type Loop[E, R any] struct {
	task    *Task[Span[E], R]
	body    func(*Ctx, E, int) R
	combine func(R, R) R
}

// Span is a piece of a loop's range, [Lo, Hi), run as a plain loop once it
// holds at most Grain iterations: the argument of a loop's tasks.
type Span[E any] struct {
	Env           E
	Lo, Hi, Grain int64
}

// RegisterLoop makes a parallel loop under a stable name, as Register does
// for a task, with the same options: pieces cross nodes under Register's
// rule. combine(a, b) merges the results of two adjacent pieces, a before
// b; it need not be commutative, so results keep index order.
func RegisterLoop[E, R any](name string, body func(c *Ctx, env E, i int) R, combine func(a, b R) R, opts ...TaskOption) *Loop[E, R] {
	if body == nil || combine == nil {
		panic("tsys.RegisterLoop: a loop needs a body and a combine function")
	}
	l := &Loop[E, R]{body: body, combine: combine}
	l.task = Register(name, l.run, opts...)
	return l
}

// Run runs the loop over [lo, hi) from inside a task and returns the
// combined result (R's zero value for an empty range). grain < 1 means 1.
func (l *Loop[E, R]) Run(c *Ctx, env E, lo, hi, grain int) R {
	return l.run(c, l.Range(env, lo, hi, grain))
}

// Task is the loop's task, for running a loop as a job's root:
//
//	tsys.Run(ctx, rt, loop.Task(), loop.Range(env, 0, n, grain))
func (l *Loop[E, R]) Task() *Task[Span[E], R] { return l.task }

// Range is the whole range [lo, hi) of the loop, as the argument of Task.
func (l *Loop[E, R]) Range(env E, lo, hi, grain int) Span[E] {
	return Span[E]{Env: env, Lo: int64(lo), Hi: int64(hi), Grain: int64(max(grain, 1))}
}

func (l *Loop[E, R]) run(c *Ctx, s Span[E]) R {
	if s.Hi-s.Lo <= max(s.Grain, 1) {
		var acc R
		for i := s.Lo; i < s.Hi; i++ {
			v := l.body(c, s.Env, int(i))
			if i == s.Lo {
				acc = v
			} else {
				acc = l.combine(acc, v)
			}
		}
		return acc
	}
	mid := s.Lo + (s.Hi-s.Lo)/2
	first := l.task.Fork(c, Span[E]{Env: s.Env, Lo: s.Lo, Hi: mid, Grain: s.Grain})
	second := l.task.Call(c, Span[E]{Env: s.Env, Lo: mid, Hi: s.Hi, Grain: s.Grain})
	return l.combine(first.Join(c), second)
}
