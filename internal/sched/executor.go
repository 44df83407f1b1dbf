package sched

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/goroutine"
	"github.com/tsys-go/tsys/internal/invariant"
)

// Executor is a goroutine that runs tasks on behalf of the worker it holds.
// A task reaches it through a Ctx (ctx.go), and spawns and waits through
// that.
//
// An executor holds at most one worker. When a task it runs must wait for a
// result that is being computed elsewhere, the executor gives its worker to
// another executor and parks; when the result arrives it queues for a worker
// and continues on whichever worker passes to it. So the number of executors
// running tasks never exceeds the number of workers, a wait never leaves a
// worker idle (NewTS's non-blocking execution mode), and every task keeps its
// own Go stack: no task is ever buried under an unrelated one.
//
// Concurrency: an executor, its Ctxs, its credit (spawn.go) and its
// frameTrack are its own goroutine's. Other goroutines touch only wake,
// to hand it a worker or rouse it (crew), and blocked, to claim the right
// to; Ctx.Check reads its Ctxs' state words from any goroutine.
type Executor struct {
	// w is written only by the executor's own goroutine: another executor
	// hands it a worker through wake, never by assignment, so a worker can
	// neither be lost nor held twice.
	w    *Worker
	pool *Pool
	// wake carries the worker to continue on when the executor is blocked
	// (nil: the run has ended), or just a nudge when it is parked idle.
	wake chan *Worker
	// v is the active Ctx, whose Fast is the state of Spawn's fast path
	// (spawn.go): base, the executor's own, or the Ctx of the innermost
	// closure body it runs; views holds base and every body's Ctx it has
	// made, by depth (ctx.go).
	v     *Ctx
	base  Ctx
	views []*Ctx
	// g is the identity of the executor's goroutine (0 where none can be
	// had), which Ctx.Check compares.
	g uintptr
	// culprit names the innermost body or frame a panic was raised in,
	// noted as the bodies around it unwind (noteCulprit); "" otherwise.
	culprit string
	// measure and checkCopies are the pool's, for the run (Pool.SetWorkSpan,
	// SetCheckCopies); every Ctx holds a copy for package tsys. runCtx is
	// the run's context (Ctx.Context).
	measure, checkCopies bool
	runCtx               context.Context
	// granted is the credit last granted, to count what was spent.
	granted int
	// grantedAt is when it was granted, and pace the time one inlined spawn
	// took on the last grant spent in full (-1 until measured): they size
	// the next grant.
	grantedAt time.Time
	pace      time.Duration
	// lastGrant is the size of the last grant, however it ended: the
	// next may be twice as large at most.
	lastGrant int
	// emptyGrant: the last yes granted no credit (coarse spawns), so the
	// time since grantedAt is one spawn's, the pace for the next.
	emptyGrant bool
	// refused is set when the policy last answered no; a no stands until
	// the next push (see AskSpawn).
	refused bool
	// tcalls counts the policy's noes, to watch the caller's context
	// every callerEvery of them (callerwatch.go).
	tcalls uint
	// forks counts the frames this executor pushed for Forks not yet
	// joined (fork.go, rule 3).
	forks int
	// nested counts the task frames this goroutine runs inside one
	// another, each popped back by the Join or Get of the task below it:
	// the depth of a fork chain that nobody stole from (deepchain.go).
	nested int
	// cur is the innermost task frame this goroutine is running; it names
	// the task when a panic reaches the executor's loop.
	cur *Header
	// track follows the frames this goroutine runs while a timeline,
	// the stream or work and span want them (track.go).
	track frameTrack
	// blocked is 1 while the executor waits in block and nobody has yet
	// claimed the right to wake it.
	blocked atomic.Uint32
}

// newExecutor makes an executor of p, which has yet to measure its pace.
func newExecutor(p *Pool) *Executor {
	x := &Executor{pool: p, wake: make(chan *Worker, 1), pace: -1, lastGrant: 1}
	x.track.x = x
	return x
}

// begin readies x, new, to run the current run on worker w.
func (x *Executor) begin(w *Worker) {
	p := x.pool
	x.w = w
	x.measure, x.checkCopies, x.runCtx = p.measure, p.checkCopies, p.runCtx
	x.base.init(x, 0) // after the run's options, which every Ctx copies
	x.views = append(x.views, &x.base)
	x.base.activate(&x.pool.ending.bits, 0)
	x.v = &x.base
	x.track.start(p.measure || p.view.timeline.Load() != nil)
}

// Worker returns the worker the executor holds. It changes only across a
// blocking Await.
func (c *Ctx) Worker() *Worker { return c.x.w }

// View is the readers' side of the pool the executor serves: what a
// loop asks of the workers around it (View.Hungry, View.MayBeStolen).
func (c *Ctx) View() *View { return &c.x.pool.view }

// Push puts a task frame in the executor's deque: the slow half of a spawn,
// after AskSpawn (the cancellation point, which checked c) said no.
func (c *Ctx) Push(h *Header) {
	x := c.x
	x.refused = false
	w := x.w
	if x.measure {
		// Before the push, which may publish the task: a thief reads its
		// clock and its tree id as soon as it begins it.
		h.SetSpanClock(x.track.strandClock())
		if r := x.pool.recorder; r != nil && len(x.track.open) > 0 {
			r.spawned(h, x.track.open[len(x.track.open)-1].id)
		}
	}
	// Deque.Push in two halves, so that PushOwn's is inlined: a call less
	// on the common path (BenchmarkForkJoin), as in JoinForked.
	i, n, ok := w.dq.PushOwn(h)
	if !ok {
		i, n = w.dq.PushPublishing(h)
	}
	h.index = i
	c.Fast.Spawned = tagFrame(h)
	x.forks++
	if counting {
		w.stats.Spawns++
		if n > w.stats.MaxDeque {
			w.stats.MaxDeque = n
		}
	}
	x.offerWork(true)
}

// offerWork is called after every push and pop of the executor's deque:
// when another worker looks for work or is parked, or another node wants
// some, it publishes the deque's private tasks (publishWork). While every
// worker is busy and no node asks, it costs three loads, and the tasks
// stay private, where the owner pushes and pops them without sequentially
// consistent stores (deque.go).
func (x *Executor) offerWork(pushed bool) {
	p := x.pool
	if p.crew.nIdle.Load() == 0 && p.crew.nSpinning.Load() == 0 && !p.port.wanted.Load() {
		return
	}
	x.publishWork(pushed)
}

// publishWork makes the private tasks of the executor's worker public
// (Deque.Release) and, when that or a push made new work visible, wakes a
// parked worker if nobody is looking (notifyWork) and tells the cluster of
// it. Besides offerWork, it runs before the worker waits (waitForShare)
// or goes to another executor (block, passToResumable): the executor that
// takes it may run a long task before it pushes or pops again. Owner
// only.
//
// Releasing stores before notifyWork loads the counters again, which
// keeps step 1 of the push-versus-park argument (idle.go) for every
// public task. A private task a parker cannot see is not lost: the
// worker's executor runs it, or publishes it at its next push or pop,
// once it sees the parker.
func (x *Executor) publishWork(pushed bool) {
	if released := x.w.dq.Release(); !pushed && released == 0 {
		return
	}
	p := x.pool
	p.crew.notifyWork()
	if p.port.wanted.Load() {
		p.port.remote.Pushed()
	}
}

// Await returns once h is done. If h is still in this executor's deque it
// runs it here, after the tasks pushed above it (they were spawned later by
// this same stack of tasks, so none of them can depend on the waiting one).
// Otherwise the task is running elsewhere, and the executor blocks, handing
// its worker to another executor.
func (c *Ctx) Await(h *Header) {
	if !c.usable() {
		c.refuse()
	}
	x := c.x
	x.await(h)
	if x.measure {
		x.track.waited(h)
	}
}

// await is Await but for the measuring of work and span.
func (x *Executor) await(h *Header) {
	for !h.Done() {
		if x.pool.ending.Load() {
			panic(abortRun)
		}
		w := x.w
		if w.dq.Holds(h.index, h) {
			if t := w.dq.Pop(); t != nil {
				x.offerWork(false)
				// The deque shrank: the next spawn must ask allowCCall
				// afresh rather than spend credit granted when it was
				// longer.
				x.flushCredit()
				x.nested++
				x.execute(t)
				x.nested--
				continue
			}
		}
		x.block(h)
	}
}

// execute runs one task frame to completion on this goroutine.
func (x *Executor) execute(h *Header) { x.run(h, true) }

// run runs a task frame and stores its result; publish completes it (sets
// the done bit, releases waiters): Await's execute does, and runTop
// completes the frame itself, after its check. JoinForked, which runs a frame
// nobody else may read and never publishes it, has run's body written out
// instead, because a call of run would be on the path of every fork that
// is a task and run is too large to inline (BenchmarkForkJoin). A change
// here is a change there.
func (x *Executor) run(h *Header, publish bool) {
	// No defer here: a deferred call in every task frame is a sixth of a
	// spawn and Get (BenchmarkSpawnGet). A task that panics just leaves no
	// timeline event.
	if x.track.on {
		x.track.begin(h)
	}
	prev := x.cur
	x.cur = h
	h.kind.Run(h, x.v)
	x.cur = prev
	x.w.stats.TasksRun++
	if x.track.on {
		x.track.end(h)
	}
	if publish {
		h.complete(x.pool)
	}
}

// block parks the executor until h is done, lending its worker to another
// executor meanwhile, or until the run fails. The run's end wakes it
// (crew.stop) from the run's goroutine; but a solo run's goroutine is
// its executor's, which may be the one parked here (a cyclic wait), and
// nobody else would: so the run's failure (its caller's context, a task
// the worker ran meanwhile) wakes it too, and it unwinds at once, as its
// run's end would have it do.
func (x *Executor) block(h *Header) {
	p := x.pool
	x.blocked.Store(1)
	if !p.crew.registerBlocked(x) {
		x.blocked.Store(0)
		panic(abortRun)
	}
	wt := &waiter{x: x}
	if !h.addWaiter(wt) && x.blocked.CompareAndSwap(1, 0) {
		// Done before we parked, and nobody will wake us.
		p.crew.unregisterBlocked(x)
		return
	}
	x.flushCredit()
	w := x.w
	if counting {
		w.stats.BlockedWaits++
	}
	x.track.suspend(w)
	x.publishWork(false)
	x.w = nil
	failed := p.failed // the run's, fixed before its executors start
	p.crew.handOff(w)
	select {
	case x.w = <-x.wake:
	case <-failed:
		// A worker handed to x from here on is left in wake: the run is
		// over, and the next run's executors are new.
	}
	if x.w == nil {
		// Woken by the end of the run, not by the result.
		panic(abortRun)
	}
	x.track.resume()
}

// abortRun unwinds a task whose run has ended (failed, cancelled, or its
// root finished while it still waited). It is recovered by the executor loop
// and never reaches user code as an error.
var abortRun = &abortSignal{}

type abortSignal struct{}

// live is an executor's goroutine: it runs its worker's tasks, and when it
// has passed the worker on it waits as a spare for the next hand-off, until
// the run ends.
func (x *Executor) live() {
	defer x.pool.crew.wg.Done()
	x.g = goroutine.Current()
	for {
		x.loop()
		if !x.pool.crew.waitAsSpare(x) {
			break
		}
	}
	// Before the run's end is reported (wg): a Ctx a program kept says
	// so from then on.
	x.endCtxs()
}

// loop runs tasks until the run ends or the executor passes its worker on.
func (x *Executor) loop() {
	p := x.pool
	defer x.flushCredit()
	for !p.ending.Load() {
		if p.crew.nResumable.Load() > 0 && p.crew.passToResumable(x) {
			return
		}
		if x.heldBack() {
			x.waitForShare()
			continue
		}
		h := x.w.dq.Pop()
		if h != nil {
			x.offerWork(false)
		} else if h = x.findWork(); h == nil {
			continue
		}
		x.track.retrack(p)
		if !x.runTop(h) {
			return
		}
	}
}

// runTop runs a task taken by the loop, turning a panic into the run's error.
// It reports whether the executor still holds a worker.
func (x *Executor) runTop(h *Header) (holdsWorker bool) {
	forks := x.forks
	defer func() {
		if r := recover(); r != nil {
			if b, ok := r.(invariant.Broken); ok {
				panic(b)
			}
			if c, ok := r.(*Ctx); ok {
				// A cancellation point of package tsys (ctx.go): the
				// run is ending, or c is misused.
				r = abortRun
				if why := c.misuse(false); why != "" {
					r = why
				}
			}
			if r == abortRun && !x.pool.ending.Load() {
				// Every abortRun of this run's comes after its end: this
				// one is another run's, whose Ctx a task of this run used
				// on the goroutine both run on (a solo run inside a task).
				r = errOtherRunsCtx
			}
			if r != abortRun {
				x.pool.fail(&TaskPanic{Task: x.culpritName(h), Value: r, Stack: debug.Stack()})
			}
			x.cur, x.culprit = nil, ""
			x.resetCtxs()
			x.track.open = x.track.open[:0]
			x.forks = forks
			x.nested = 0
			holdsWorker = x.w != nil
		}
	}()
	x.run(h, false)
	if x.v != &x.base {
		// The task recovered a panic out of a closure body (Ctx.Unwind).
		panic(x.v.misplaced(stateOf(&x.v.state), true))
	}
	if x.forks != forks {
		// Checked here, once per task the loop takes, rather than in run
		// at every frame, where it slowed the fine-grained apps
		// (BenchmarkRatios; bench/README.md, "Natural code"). The leak is
		// in this task's tree. Before the task completes, so that a root
		// that leaked fails its run.
		x.forks = forks
		panic(unjoinedFork(h))
	}
	x.culprit = "" // noted by a body whose panic the task recovered
	h.complete(x.pool)
	return true
}

// culpritName names the code a panic that reached runTop, whose task is
// top, was raised in: the innermost closure body or task frame running
// then (Ctx.Unwind notes it while bodies unwind).
func (x *Executor) culpritName(top *Header) string {
	switch {
	case x.culprit != "":
		return x.culprit
	case x.v.form != "" && x.v.frame == x.cur:
		return x.v.form
	case x.cur != nil:
		return x.cur.kind.Name
	}
	return top.kind.Name
}

// noteCulprit records, as the body b unwinds from a panic, what was
// running innermost when it was raised: b itself, or a task frame run
// inside it. Only the first body to unwind notes it.
func (x *Executor) noteCulprit(b *Ctx) {
	switch {
	case x.culprit != "":
	case x.cur == b.frame:
		x.culprit = b.form
	case x.cur != nil:
		x.culprit = x.cur.kind.Name
	}
}
