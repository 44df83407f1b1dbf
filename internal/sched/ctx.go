package sched

import (
	"fmt"
	"sync/atomic"

	"github.com/tsys-go/tsys/internal/goroutine"
	"github.com/tsys-go/tsys/internal/invariant"
)

// The Ctx a task holds.
//
// A task reaches the executor that runs it through a Ctx (package tsys's
// Ctx is this type under its own name). An executor has a stack of them,
// one active at a time: its own, which the tasks it runs get, and one more
// for each closure body (tsys.Both, Pair, For, Fold, Do, the loops) it runs
// inside them. A body gets a Ctx of its own, and the Ctx of the code
// around it is suspended until the body returns (Enter, Leave). A Ctx is
// used where it belongs when it is its executor's active Ctx, used on the
// executor's goroutine, during its run. Every other use is a mistake,
// which Check names before the scheduler's state is touched:
//
//   - suspended: a body used the Ctx of the code around it, which its
//     closure captured, instead of its own;
//   - ended: the body or the run it was given to has returned;
//   - another goroutine: the program handed it to a goroutine of its own.
//
// The checks cost the fast path nothing. A Ctx that is not active has no
// credit, its Ending flag points to a word that says "ending"
// (ctxPoison), and its token is nil. So the next Fork, Spawn, AllowCCall,
// Call or loop chunk through it takes the slow path, and the next Join
// reaches JoinForked: both check first. Only a goroutine of the program's
// own that uses an active Ctx can go a little way on its fast path, on
// credit it races its task for, before a slow path catches it; that way
// runs plain calls only and touches no deque and no frame.
//
// The token. Where a Fork that became a task leaves its frame in Spawned,
// a Fork that ran as a plain call leaves the token of its Ctx: a pointer to
// the Ctx's hdr, a Header whose kind is ctxKind, tagged with the Ctx's
// generation as a frame's pointer is (fork.go). tsys's Join compares a
// Forked's pointer with its Ctx's token (one load more than the nil test
// it replaces) and so sends a Forked joined through any other Ctx to
// JoinForked, which finds ctxKind and names the mistake: a Fork in one
// closure body joined in the code around it is caught every time, whether
// the fork was a task or a call. A body's Ctx is reused by the next body
// at its depth, under the next generation, so that a Forked kept from an
// earlier body does not match either.
type Ctx struct {
	// hdr is what a token points to; its kind is ctxKind and its Gen
	// counts the bodies that used this Ctx.
	hdr Header
	// Fast is the state of the inlined spawn (spawn.go). Exported only
	// because package tsys's Fork, inlined into task code, reads and
	// writes it; through tsys.Ctx a program can reach it too, and must
	// not: the fork protocol (fork.go) depends on nothing else touching it.
	Fast FastPath
	x    *Executor
	// state is one of ctxActive, ctxSuspended, ctxEnded: written by the
	// executor's goroutine only, read by Check from any (stateOf).
	state uint32
	// depth is the Ctx's place in its executor's stack (0: the
	// executor's own).
	depth int
	// child is the Ctx of the bodies entered from this one (newChild);
	// a body's parent, below, is fixed too: the Ctx whose child it is.
	child *Ctx
	// A body's: the Ctx around it, the name of the form that runs it
	// ("tsys.For"), the frame the executor ran when it began, and the
	// forks not yet joined then, which must be so again when it returns.
	parent *Ctx
	form   string
	frame  *Header
	forks  int
	// inside is the form of the body that suspended c, for Check's
	// message; written before the state says so.
	inside string
}

// ctxPoison is the Ending flag of a Ctx that is not active: always set,
// so that every inlined path through it that tests Ending goes slow.
var ctxPoison = func() *atomic.Uint64 {
	var e endingFlag
	e.Store(true)
	return &e.bits
}()

// The states of a Ctx. ctxAfterRun is ctxEnded once its executor's run
// is over, for the message only.
const (
	ctxActive uint32 = iota
	ctxSuspended
	ctxEnded
	ctxAfterRun
)

// ctxKind is the kind of a Ctx's hdr: what tells JoinForked that a
// Forked carries a token, not a frame. No task has it.
var ctxKind = Kind{Name: "tsys.Ctx"}

// init makes c the Ctx at depth of executor x, active or not.
func (c *Ctx) init(x *Executor, depth int) {
	// Done, as the value of a Forked that carries the token is.
	c.hdr.state.Store(stateDone)
	c.hdr.kind = &ctxKind
	c.x, c.depth = x, depth
	c.Fast.Measure, c.Fast.CheckCopies = x.measure, x.checkCopies
	c.deactivate(ctxEnded)
}

// activate makes c usable: its token (for its current generation), an
// empty Spawned, the pool's Ending flag (ending, the caller's copy of the
// pointer) and credit.
func (c *Ctx) activate(ending *atomic.Uint64, credit uint) {
	t := tagFrame(&c.hdr)
	c.Fast.Token, c.Fast.Spawned, c.Fast.Ending, c.Fast.Credit = t, t, ending, credit
	setState(&c.state, ctxActive)
}

// deactivate makes every use of c take a checking path (see the top of
// this file), and says why: state.
func (c *Ctx) deactivate(state uint32) {
	c.Fast.Credit, c.Fast.Token, c.Fast.Ending = 0, nil, ctxPoison
	c.Fast.Spawned = nil
	setState(&c.state, state)
}

// Check panics, naming the mistake and its fix, unless c may be used
// here and now: it is its executor's active Ctx, on the executor's
// goroutine, during its run. Every exported method of Ctx that reaches
// the scheduler's state checks first; package tsys calls it where a
// method does nothing else the check would see (Fail, AddProgress) and,
// under the race detector, before its inlined paths touch the Ctx.
func (c *Ctx) Check() {
	if c == nil || !c.usable() {
		c.refuse()
	}
}

// usable is Check's test, small enough to inline where it runs on a
// spawn's or a join's slow path: c is active, on its executor's
// goroutine. Where goroutines cannot be told apart, Current and the
// executor's g are both 0.
func (c *Ctx) usable() bool {
	return stateOf(&c.state) == ctxActive && c.x.g == goroutine.Current()
}

// refuse panics with the mistake of using c here and now.
//
//go:noinline
func (c *Ctx) refuse() {
	if why := c.misuse(true); why != "" {
		panic(why)
	}
	throwf("a Ctx refused that may be used")
}

// misuse says why c may not be used here and now, or "" if it may: live,
// as the program uses it; or not, as a panic raised by its use reaches
// runTop.
func (c *Ctx) misuse(live bool) string {
	switch {
	case c == nil:
		return errNilCtx
	case stateOf(&c.state) != ctxActive:
		return c.misplaced(stateOf(&c.state), live)
	case c.x.g != goroutine.Current():
		return errOtherGoroutine
	}
	return ""
}

// The mistakes Check names. They are plain strings, as the runtime's own
// panics for a misused map or channel are: a program does not handle
// them, it fixes the code they point at.
const (
	errNilCtx = "tsys: a nil *tsys.Ctx: pass the Ctx the task or the closure body was given " +
		"(its parameter c); outside a task, start a job with tsys.Run or tsys.Do"
	errOtherGoroutine = "tsys: a Ctx used on a goroutine that is not its task's: a Ctx belongs " +
		"to the goroutine running its task; make the work a task (Fork, Spawn, Both) rather " +
		"than a goroutine, or hand the goroutine c.Context() only"
	errCtxAfterRun = "tsys: a Ctx used after its job ended: a Ctx is good only while its task " +
		"runs; do not keep it (start another job with tsys.Run or tsys.Do)"
	// errOtherRunsCtx is not Check's: a job started from inside a task may
	// run on that task's goroutine (solo.go), where the task's Ctx passes
	// Check, and is found when that Ctx's job ends inside this one (runTop).
	errOtherRunsCtx = "tsys: the Ctx of the task that started this job used inside it: a job " +
		"started from inside a task (tsys.Run or tsys.Do) has Ctxs of its own; use the Ctx its " +
		"task or closure body is given, not the one of the task around it"
)

// misplaced is the mistake of using c while it is not active. It reads
// only what the executor wrote before it stored the state: it may run on
// any goroutine.
func (c *Ctx) misplaced(state uint32, live bool) string {
	if state == ctxEnded && c.depth == 0 {
		state = ctxAfterRun // an executor's own Ctx ends only with its run
	}
	if x := c.x; live && state == ctxSuspended && x.g == goroutine.Current() && x.v == c {
		// The body that suspended c is gone, and its code runs again:
		// it recovered a panic that unwound through the body (Unwind).
		return fmt.Sprintf("tsys: the Ctx of the code around a %s body used after a panic out of the "+
			"body was recovered: a panic that leaves a closure body ends the job's use of the Ctx "+
			"around it; let the panic reach the job (Run's error), or recover it inside the body", c.inside)
	}
	return misuseMessage(state, c.inside)
}

// misuseMessage is the mistake of using a Ctx in state: suspended by a
// body of form, or ended.
func misuseMessage(state uint32, form string) string {
	switch state {
	case ctxSuspended:
		return fmt.Sprintf("tsys: the Ctx of the code around a %s body used inside it: "+
			"use the Ctx the body is given (its own parameter c), not the enclosing task's", form)
	case ctxEnded:
		return "tsys: the Ctx of a closure body used after the body returned: " +
			"a Ctx is good only while its body runs; use the Ctx of the code running now"
	}
	return errCtxAfterRun
}

// A Ctx is the panic value of a cancellation point in package tsys, which
// found its Ending flag set, inline, where a call to check it would cost
// too much (tsys's stopIfEnded): its run has failed or ended, or it is
// used where it does not belong. runTop tells which, from states that
// nothing changes before runTop has failed the run (Unwind): the misuse,
// if misuse names one, else the run's end. On a goroutine of the
// program's own the panic goes unrecovered, and Go prints Error.

// Error says why a cancellation point unwound with c: the misuse, or the
// end of its run.
func (c *Ctx) Error() string {
	if why := c.misuse(false); why != "" {
		return why
	}
	return "tsys: the job this Ctx belongs to has failed or ended"
}

// Enter begins a closure body of form (its name in errors: "tsys.For")
// inside the code that holds c, and returns the body's Ctx: c is
// suspended until the body's Leave. The caller runs the body with the
// Ctx returned, calls Leave when it returns, and defers Unwind, which
// restores c if the body panics instead.
//
// Enter and Leave run once per closure form, which at the finest grain is
// once per few nanoseconds of work: the body's Ctx is found by a link from
// c, not through the executor's list, and the pool's Ending flag is
// copied from the Ctx that holds it.
func (c *Ctx) Enter(form string) *Ctx {
	c.Check()
	x := c.x
	b := c.child
	if b == nil {
		b = newChild(c)
	}
	b.hdr.Gen++
	b.form, b.frame, b.forks = form, x.cur, x.forks
	b.activate(c.Fast.Ending, c.Fast.Credit) // c is active: its Ending is the pool's
	c.inside = form
	c.deactivate(ctxSuspended)
	x.v = b
	return b
}

// newChild makes the Ctx of the bodies entered from c, the next in its
// executor's stack.
func newChild(c *Ctx) *Ctx {
	x := c.x
	b := new(Ctx)
	b.init(x, c.depth+1)
	b.parent, c.child = c, b
	x.views = append(x.views, b)
	return b
}

// Leave ends the body whose Ctx b is, which returned, and resumes the
// code around it with the credit the body left. A body that returns with
// a Forked it did not join panics, naming its form: the Forked belongs to
// the body that made it.
func (b *Ctx) Leave() {
	x := b.x
	if x.v != b {
		throwf("Leave of a %s body whose Ctx is not the active one", b.form)
	}
	if stateOf(&b.state) != ctxActive {
		// A body inside returned by a panic that this body recovered.
		panic(b.misplaced(stateOf(&b.state), true))
	}
	if x.culprit != "" {
		x.culprit = "" // noted by a body inside whose panic the program recovered
	}
	if x.forks != b.forks {
		panic(fmt.Sprintf("tsys: a %s body returned without joining a Forked: "+
			"join every Fork in the body that made it, before it returns "+
			"(or use Spawn, whose Future needs no Get)", b.form))
	}
	// The parent is the active Ctx again, with the credit b left.
	p := b.parent
	credit, ending := b.Fast.Credit, b.Fast.Ending
	b.deactivate(ctxEnded)
	b.frame = nil
	p.activate(ending, credit) // b was active: its Ending is the pool's
	x.v = p
}

// Unwind, deferred by the caller of Enter, notes b as the body a panic
// left (noteCulprit), and makes the Ctx around it the executor's again,
// still suspended: every state stays as the panic found it until runTop
// resets them, after it has failed the run, so that what another
// goroutine's use of these Ctxs names (a Ctx captured by a stolen body)
// does not depend on how far this one has unwound. A program that
// recovers the panic inside its task finds the Ctx around the body
// unusable, and is told so (misplaced); the Ctxs are reset when its task
// returns. After Leave, Unwind does nothing.
func (b *Ctx) Unwind() {
	if x := b.x; x.v == b {
		unwind(b)
	}
}

// unwind is Unwind's work, out of line so that Unwind's test, which a
// body's return runs, inlines into it.
//
//go:noinline
func unwind(b *Ctx) {
	b.x.noteCulprit(b)
	b.x.v = b.parent
}

// endCtxs ends every Ctx of the executor: its run is over, and a Ctx a
// program kept must say so when used (errCtxAfterRun).
func (x *Executor) endCtxs() {
	for _, c := range x.views {
		c.deactivate(ctxAfterRun)
	}
	x.v = &x.base
}

// resetCtxs makes the executor's own Ctx the active one again after a
// task panicked through bodies (runTop), or recovered such a panic itself.
func (x *Executor) resetCtxs() {
	x.flushCredit()
	for _, b := range x.views[1:] {
		if stateOf(&b.state) != ctxEnded {
			b.deactivate(ctxEnded)
		}
	}
	x.v = &x.base
	x.base.activate(&x.pool.ending.bits, 0)
}

// token is the tagged pointer a Forked of a plain call carries (see the
// top of this file); nil tokens are never made.
func isToken(h *Header) bool { return h.kind == &ctxKind }

// errZeroForked is the mistake of joining a Forked that no Fork made.
const errZeroForked = "tsys: a Forked joined that no Fork made (its zero value): join only what Fork returned"

// errForkedElsewhere is the mistake of joining a Forked through a Ctx
// other than the one that forked it, found from the token it carries.
const errForkedElsewhere = "tsys: a Forked joined through a Ctx other than the one that forked it " +
	"(a Fork in a closure body, joined outside the body?): join every Forked in the task or " +
	"closure body that made it, before it returns"

// throwf stops the program on a broken invariant of the scheduler.
func throwf(format string, args ...any) {
	invariant.Throw(fmt.Sprintf("sched: "+format, args...))
}
