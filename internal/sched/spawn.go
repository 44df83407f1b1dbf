package sched

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tsys-go/tsys/inline"
)

// FastPath is the part of a Ctx that an inlined spawn touches. It is
// exported for package tsys only (tsys.Ctx.AllowCCall, Spawn, Fork and
// Join); user code must not touch it.
//
// Spawn's and Fork's bodies are compiled in the package that uses them
// (they are generic) and reach this package only through tsys, and Go makes
// inline bodies of this package's methods unavailable there
// (golang/go#74783). So tsys works on these fields directly: an inlined
// spawn costs a decrement, a test of the top bit and the call of the task
// function, and Fork's whole fast path fits Go's inlining budget (fork.go).
type FastPath struct {
	// Credit is how many more spawns may run as direct calls before
	// allowCCall is asked again. Each spawn decrements it; when it wraps
	// below zero (Spent: its top bit is set) the spawn takes the slow path
	// (AskSpawn, then maybe Push). Unsigned, so that the test is a shift
	// that selects the path by index, without a branch the inliner would
	// charge for.
	Credit uint
	// Spawned carries a T-call's frame from Push back to the Spawn or Fork
	// that made it, tagged with the frame's generation; when no frame is
	// pending it holds Token (fork.go says who resets it, and why a Fork
	// need not).
	Spawned unsafe.Pointer
	// Token is what a Fork that ran as a plain call carries in place of a
	// frame: the Ctx's own tagged pointer, which Join compares; nil while
	// the Ctx may not be used (ctx.go).
	Token unsafe.Pointer
	// Measure is set while the pool measures work and span: a Get of a
	// task already done must then still go through Await, which reads the
	// task's clock (workspan.go).
	Measure bool
	// CheckCopies is set while the pool runs every task that may cross
	// nodes on copies of its argument and result (Pool.SetCheckCopies):
	// read where a frame runs, in package tsys, and by AskSpawn, which
	// then grants no credit and never inlines such a task.
	CheckCopies bool
	// Ending points to the pool's ending flag, non-zero once the run has
	// failed or ended (endingFlag): package tsys tests it, one load, where
	// the program's code runs next without a spawn, whose AskSpawn would
	// see the failure (Task.Call, a Join's second closure, a loop's next
	// chunk), and unwinds with Aborted. Fork's and Spawn's inlined paths
	// do not: the load would cost Fork its inlining. Their credit bounds
	// how long they run on (grant).
	Ending *atomic.Uint64
}

// Spent is Credit's top bit: the credit ran out.
const Spent = 63

// maxStaleness bounds how long a cached "yes, inline" may stand. Spawns run
// as direct calls without asking allowCCall for at most about this long,
// so a worker whose deque thieves have emptied starts exposing tasks again
// within it.
const maxStaleness = 10 * time.Microsecond

// maxCredit caps a grant; the pace still bounds it to maxStaleness. Sizing a
// grant reads the clock, so grants must span many fine spawns: a short
// window spends a visible share of UTS's search in clock reads, and fib,
// which inlines a spawn every few nanoseconds, reads it far too often under
// a small cap (BenchmarkRatios; bench/README.md, "Figures behind the
// code's constants").
const maxCredit = 4096

// minPublic is the least public floor of a deque (Deque.SetFloor): the
// tasks a worker keeps stealable when its inlining policy keeps fewer or
// none (inlining off), so that an idle worker finds work without waiting
// for the owner's next push or pop.
const minPublic = inline.DefaultK

// setFloor keeps public, in w's deque, the ready tasks the inlining policy
// keeps for thieves while expose more are wanted by other nodes.
func (w *Worker) setFloor(expose int) {
	w.dq.SetFloor(max(w.inline.K(), minPublic) + expose)
}

// AskSpawn is NewTS's allowCCall asked on the slow path of tsys's Spawn,
// Fork and Ctx.AllowCCall (k nil), when the credit is spent, for a spawn
// of kind k about to be made. It asks the inlining policy, counts the
// answer and, when it is yes, grants credit for more spawns, sized so
// that the grant lasts about maxStaleness at the measured pace of inlined
// spawns: none for coarse tasks, so that every spawn asks, up to maxCredit
// for the finest.
//
// When the answer is no it also returns the frame to push: one that a Join
// gave back to this worker, or nil if it keeps none (make a new one). One
// call does both because the slow path of a spawn is mostly calls; the
// policy's no, the answer at every T-call, is asked here too, not in a
// call (grant, a yes, is one).
//
// A no stands until the next push: only a push makes the deque longer. So
// the Spawn that follows a no from Ctx.AllowCCall does not ask again.
func (c *Ctx) AskSpawn(k *Kind) (reuse *Header, ccall bool) {
	if !c.usable() {
		c.refuse()
	}
	x := c.x
	// Every grant of credit passes here: a Fork's fast path may then
	// trust that Spawned is clear when it begins (fork.go).
	c.Fast.Spawned = c.Fast.Token
	if x.pool.ending.Load() {
		// A cancellation point for programs that inline nearly every
		// spawn: the credit bounds how long until the next one.
		panic(abortRun)
	}
	if x.checkCopies && (k == nil || k.Lendable()) {
		// Under the check a task that may cross nodes always runs on
		// copies, so its spawn is a task. AllowCCall (k nil) cannot know
		// what its yes would run as a plain call (a fast clone runs a
		// task's body), so it is told no.
		c.Fast.Credit = 0
		if k == nil {
			return nil, false
		}
		return x.w.reuseFrame(k), false
	}
	if !x.refused {
		w := x.w
		expose := int(x.pool.port.expose.Load())
		w.setFloor(expose)
		if w.inline.AllowCCallKeeping(w.dq.OwnerLen(), expose) || x.deepAndUnwanted(expose) || x.alone() {
			return nil, x.grant()
		}
		// Arriving here means the last grant was spent in full.
		// grantedAt stays: the pace is measured only on a grant spent in
		// full, and a no leaves none.
		x.watchCallerOnTCall()
		if counting {
			w.stats.Inlined += int64(x.granted)
		}
		x.granted = 0
		x.refused, x.emptyGrant = true, false
	}
	c.Fast.Credit = 0
	if k == nil {
		return nil, false
	}
	return x.w.reuseFrame(k), false
}

// grant counts a yes of the policy and grants credit.
func (x *Executor) grant() bool {
	w := x.w
	if x.checkCopies {
		return x.grantChecked()
	}
	// Arriving here means the last grant was spent in full.
	spent := x.granted
	now := time.Now()
	if x.pool.caller.done != nil {
		x.watchCaller(now.Sub(epoch)) // the monotonic reading: no second read of the clock
	}
	if counting {
		w.stats.Inlined += int64(spent) + 1
	}
	// Published with each grant, which spans ~maxStaleness of work, rather
	// than with every task: a no here is asked at every spawn (live.go).
	w.publish()
	x.track.retrack(x.pool)
	if s := x.pool.view.stream.Load(); s != nil && x.cur != nil {
		s.sample(w, x.cur.kind, now)
	}
	switch {
	case spent > 0:
		x.pace = now.Sub(x.grantedAt) / time.Duration(spent)
	case x.emptyGrant:
		x.pace = now.Sub(x.grantedAt)
	}
	n := 1
	switch {
	case x.pace == 0:
		n = maxCredit // faster than the clock can tell
	case x.pace > maxStaleness:
		// Coarse spawns: each asks, which costs little beside its work,
		// so that none runs as a call after a failure unasked, and the
		// program's plain call after it begins no leaf
		// (TestProcessFailureStopsJob).
		n = 0
	case x.pace > 0:
		n = int(max(1, min(maxStaleness/x.pace, maxCredit)))
	}
	// Grown at most twofold a grant, from 1: a pace measured on a few
	// spawns, such as the burst of a recursion's descent between two
	// long leaves, says little about the next ones, and the credit is
	// all that bounds how long inlined spawns run on without asking,
	// and so without seeing a failure (AskSpawn checks for one): a grant
	// sized on a burst would run leaf after leaf (TestFailureStopsInlinedWork).
	n = min(n, max(1, 2*x.lastGrant))
	x.lastGrant, x.emptyGrant = n, n == 0
	x.granted, x.grantedAt, x.v.Fast.Credit = n, now, uint(n)
	return true
}

// flushCredit counts the spawns inlined on the current grant and drops
// the rest of it: before the executor gives up its worker, and at its end.
func (x *Executor) flushCredit() {
	if counting && x.w != nil && x.granted > 0 {
		x.w.stats.Inlined += int64(x.granted - max(int(x.v.Fast.Credit), 0))
	}
	x.granted, x.v.Fast.Credit = 0, 0
	x.refused, x.emptyGrant = false, false
}

// grantChecked is grant under CheckCopies: it counts the yes and grants
// no credit, so that every spawn comes back to AskSpawn, where one of a
// kind that may cross nodes is made a task; the fast path cannot tell
// kinds apart. The price is a slow path per spawn, paid only under the
// check.
func (x *Executor) grantChecked() bool {
	x.watchCallerOnTCall()
	if counting {
		x.w.stats.Inlined++
	}
	x.w.publish()
	x.granted, x.v.Fast.Credit = 0, 0
	return true
}
