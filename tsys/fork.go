package tsys

import (
	"unsafe"

	"github.com/tsys-go/tsys/internal/sched"
)

// Fork is Spawn for a result that only the forking task reads, exactly
// once, through Forked.Join, before it returns: Cilk's spawn and sync,
// rayon's join. That promise lets the runtime reuse the task's frame as
// soon as it is joined, where a Future's frame must live as long as any
// copy of the future, and so is left to the garbage collector; and it
// lets Fork's fast path be short enough for Go to inline into the task
// function, so that a fork the inlining policy turns into a plain call
// costs a decrement and a call of the task function (sched/fork.go says
// how). A task that returns without joining a Forked panics. Use Spawn
// when the result is shared, stored, read more than once, or not at all.
//
// # Deep chains
//
// A fork the inlining policy keeps a task waits for a thief while fewer
// than K tasks are ready in the worker's deque, and a chain of forks (each
// level forks the next and joins it at once) never has more than one. So,
// past 256 tasks run nested inside one another on one worker's stack, each
// joined back by the task below it because nobody took it, and while no
// worker of the node and no other node wants work, forks are plain calls:
// such a task is not taken, and costs its chain a task frame and a stack
// several times as deep as the recursion's. Asked again every ~10 us of
// work, the rule lets forks be tasks again soon after a worker turns
// hungry (bench/README.md, "Deep fork chains").
//
// # Order
//
// A fork that becomes a task runs after the code that follows it, the
// task waiting in the deque for a thief or for its Join (NewTS's T-call);
// a fork the inlining policy turns into a plain call runs at once, before
// that code (a C-call). Which it is depends on the load at that moment.
// A search whose work depends on its order (branch and bound, where the
// first branch's result prunes the second) keeps its order by asking
// first:
//
//	if c.AllowCCall() { // both in order, as plain calls
//		a := search(c, first)
//		b := search(c, second)
//	} else { // second waits for a thief or the join; first runs now
//		s := Search.Fork(c, second)
//		a := search(c, first)
//		b := s.Join(c)
//	}
//
// On one worker that looks at what the serial search looks at; forking
// first and calling second instead searches second first whenever the
// fork is a task (examples/knapsack; bench/README.md, "Order in a
// branch-and-bound search").
//
// Go keeps a struct in registers only up to four fields: where Fork is
// inlined, an argument of more fields goes to the task function through
// memory. For the finest tasks keep the argument to four fields, or fork
// from a small function of your own marked //go:noinline (apps/uts does).
func (t *Task[A, R]) Fork(c *Ctx, a A) Forked[R] {
	if checkForks {
		return t.forkChecked(c, a)
	}
	// Keep this within Go's inlining budget (TestForkInlinesIntoTaskCode):
	// one call, one load of Spawned after it, nothing more. The language
	// leaves the order of a call and a plain load in one expression open;
	// gc evaluates the calls of an expression first, into temporaries, and
	// every T-call would lose its frame otherwise (the tests would fail at
	// once). A call to read Spawned, or a statement more, would cost the
	// inlining.
	c.fast.Credit--
	return Forked[R]{v: t.paths[c.fast.Credit>>sched.Spent](c, a), p: c.fast.Spawned}
}

// forkChecked is Fork under the race detector: it checks the Ctx before it
// touches it (sched.Ctx.Check), so that a misused Ctx is named, not
// reported as a race, and it takes the frame out of Spawned at once
// (sched.Ctx.CheckFork), so that a Forked a task
// forgets inside a direct call cannot be taken by the Fork around that
// call for its own; the forgetful task's frame then ends in a panic.
func (t *Task[A, R]) forkChecked(c *Ctx, a A) Forked[R] {
	c.sched().Check() // before the decrement, which would race
	c.fast.Credit--
	v := t.paths[c.fast.Credit>>sched.Spent](c, a)
	return Forked[R]{v: v, p: c.sched().CheckFork()}
}

// Forked is the result of a Fork: a future to be joined exactly once by
// the task that forked it, before it returns. A second Join panics, and so
// does a task that returns without joining one.
type Forked[R any] struct {
	v R
	// p points into the task's frame, tagged with its generation
	// (sched/fork.go); when the value is already in v, it is the token of
	// the Ctx that forked it (sched/ctx.go), so that a Join through
	// another Ctx is caught.
	p unsafe.Pointer
}

// Ready reports whether Join would return without waiting: the fork ran
// as a plain call, or its task has run. A task that forks many children
// joins those that are ready at once and keeps only the others, so that
// what it holds to join later stays short (most forks run as plain
// calls); in the fast clone that go generate writes (cmd/tsysclone) every
// fork is ready and Ready is true without a question, so the slice stays
// empty, where an array of every child's result would be zeroed at every
// call (bench/README.md, "The generated fast clone"):
//
//	var pending []tsys.Forked[int]
//	total := 0
//	for _, r := range parts {
//		f := Search.Fork(c, r)
//		if f.Ready() {
//			total += f.Join(c)
//		} else {
//			pending = append(pending, f)
//		}
//	}
//	for i := len(pending) - 1; i >= 0; i-- { // newest first: it may still be in the deque
//		total += pending[i].Join(c)
//	}
func (f Forked[R]) Ready() bool { return f.p == nil || sched.FrameOf(f.p).Done() }

// Join returns the result, running the task here if no other worker took
// it, and waiting for it otherwise, as Future.Get does. The fork that was
// a task costs one call here, JoinForked's; the result is read from the
// frame inline, which still keeps Join within Go's inlining budget
// (TestForkInlinesIntoTaskCode). A fork that was a plain call is read
// from f when c is the Ctx that forked it, whose token f carries; through
// any other Ctx, JoinForked names the mistake.
func (f Forked[R]) Join(c *Ctx) R {
	if checkForks {
		c.sched().Check() // before the token is read, which would race
	}
	if f.p != c.fast.Token {
		return (*cell[R])(unsafe.Pointer((*sched.Ctx)(unsafe.Pointer(c)).JoinForked(f.p))).res
	}
	return f.v
}

// unfork takes back a fork that nobody has taken, without running it
// (sched.Ctx.Unfork), and reports whether it did; the Forked is then
// spent. A fork that was a plain call has run already: false.
func (f Forked[R]) unfork(c *Ctx) bool { return f.p != c.fast.Token && c.sched().Unfork(f.p) }
