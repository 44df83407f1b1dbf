package sched

import (
	"fmt"
	"unsafe"
)

// The fork protocol: how a spawn's frame reaches the Fork that made it, at
// the cost of one load on Fork's fast path.
//
// Fork (package tsys) is small enough for Go's inliner only if its fast
// path is a decrement, one call and one load: it calls the task function
// or the slow path (chosen by Credit's top bit), then reads Spawned, and
// never resets it. Push sets Spawned to the frame a T-call pushed; when no
// frame is pending, Spawned holds the Ctx's token (ctx.go), which a Forked
// of a C-call then carries. So the protocol must make sure that whenever a
// Fork's call returns, Spawned is either the frame that very call pushed,
// or the token:
//
//  1. A fast path runs only on credit, and credit is granted only by
//     AskSpawn, which resets Spawned to the token. A T-call's Push zeroes
//     the credit, so the spawn after it takes the slow path and resets
//     Spawned too. A closure body's Ctx begins with its token in Spawned,
//     and the Ctx around it gets it back when the body returns.
//  2. So when a C-call's task function returns, Spawned holds a frame only
//     if a T-call inside it pushed one that nothing reset since: no spawn
//     followed it, and its Forked was never joined. JoinForked resets
//     Spawned, and so does a Spawn that reads it.
//  3. A Forked must therefore be joined before the task that forked it
//     returns (Cilk's implicit sync). Each executor counts its forks that
//     are not yet joined (Push counts, Spawn's TakeSpawned and JoinForked
//     uncount), and a task the loop took that ends with more than it began
//     with, itself or a task it ran, forked a task it never joined:
//     runTop panics, naming it; a closure body that does is caught when it
//     returns (Ctx.Leave). A task that forgets a Forked inside a direct
//     call (a C-call of another task) could make the Fork around that call
//     take the forgotten frame for its own first; under the race detector
//     tsys's Fork takes a checked path that resets Spawned at once, so that
//     case too ends in the panic rather than in a wrong result.
//
// The frame pointer in Spawned carries the low bits of the frame's
// generation (genTag), so that a second Join of one Forked is caught
// without the fast path reading the generation: frames are 8-byte aligned
// and larger than 8 bytes, so the tagged pointer stays inside the frame,
// where the garbage collector still sees it. A token is tagged the same
// way with its Ctx's generation.

// genTag is the mask of the generation bits a tagged frame pointer
// carries.
const genTag = 7

// tagFrame is h's pointer with its generation's low bits added.
func tagFrame(h *Header) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(h), uintptr(h.Gen&genTag))
}

// untagFrame splits a tagged frame pointer into the frame and the
// generation bits it was tagged with.
func untagFrame(p unsafe.Pointer) (*Header, uint32) {
	gen := uintptr(p) & genTag
	return (*Header)(unsafe.Add(p, -int(gen))), uint32(gen)
}

// FrameOf is the frame a tagged pointer (Spawned, a Forked's) points into.
func FrameOf(p unsafe.Pointer) *Header {
	h, _ := untagFrame(p)
	return h
}

// TakeSpawned takes the frame a Spawn's T-call just pushed, or nil after a
// C-call: a Future needs no Join, so its frame is not counted as a fork.
func (c *Ctx) TakeSpawned() *Header {
	p := c.Fast.Spawned
	if p == c.Fast.Token {
		return nil
	}
	c.Fast.Spawned = c.Fast.Token
	c.x.forks--
	return FrameOf(p)
}

// CheckFork is the checked fast path's half of a Fork (under the race
// detector): it takes what Spawned holds, resetting it, so that no other
// Fork can take it for its own.
func (c *Ctx) CheckFork() unsafe.Pointer {
	p := c.Fast.Spawned
	c.Fast.Spawned = c.Fast.Token
	return p
}

// JoinForked waits for the forked task whose frame p points into (tagged
// with its generation, fork.go), whose result only the forking task
// reads, and returns the frame. A frame joined before carries a newer
// generation than p: a second Join of one Fork panics.
//
// In the common case the task is still the newest of this executor's
// deque: it is popped and run here, its result is never published (nobody
// else may read it), and the frame is kept for the next fork of its kind
// (AskSpawn hands it out). The caller reads the result before it forks
// again. Otherwise JoinForked waits as Await does, and the frame is left
// to the garbage collector: a thief that ran it may still be inside
// complete, touching the frame after it set the done bit. That is the
// rare case by design: tasks are stolen far less often than they are
// spawned.
//
// Either way the join counts a generation in h.Gen, after which the
// forking task's handle no longer matches the frame. The completer never
// touches Gen, a field of its own.
func (c *Ctx) JoinForked(p unsafe.Pointer) *Header {
	if !c.usable() {
		c.refuse()
	}
	x := c.x
	if p == nil {
		panic(errZeroForked)
	}
	h, gen := untagFrame(p)
	if isToken(h) {
		panic(errForkedElsewhere)
	}
	if h.Gen&genTag != gen {
		panic(fmt.Sprintf("tsys: a Forked of task %q joined twice: Join takes the result once (use Spawn and Future.Get to read it more often)", h.kind.Name))
	}
	if x.pool.ending.Load() {
		// A cancellation point: a task that forked many others and joins
		// them one by one would otherwise run every one of them here
		// after the run failed (TestJoinForkedIsACancellationPoint).
		panic(abortRun)
	}
	// Deque.PopIf in two halves, so that PopOwnIf's is inlined.
	popped := x.w.dq.PopOwnIf(h) || x.w.dq.PopPublicIf(h)
	if popped {
		x.offerWork(false)
		x.flushCredit()
		// x.run(h, false), written out (see run).
		if x.track.on {
			x.track.begin(h)
		}
		prev := x.cur
		x.cur = h
		x.nested++
		h.kind.Run(h, c)
		x.nested--
		x.cur = prev
		x.w.stats.TasksRun++
		if x.track.on {
			x.track.end(h)
		}
	} else {
		x.await(h)
	}
	if x.measure {
		x.track.waited(h)
	}
	h.Gen++
	if popped {
		x.w.recycle(h)
	}
	c.Fast.Spawned = c.Fast.Token
	x.forks--
	return h
}

// Unfork takes back a forked task that nobody has taken, without running
// it: if the frame p points into is still the newest in this worker's
// deque, it is popped and recycled, and Unfork reports true; the Forked
// is then spent, as by a Join, and its work is the caller's to do (a loop
// runs the piece itself, on its own result). Otherwise nothing changes,
// and the caller joins it. It is JoinForked without the run, so it keeps
// the same books: the fork is uncounted, Spawned cleared, the credit
// dropped, and the spawn counted as inlined, which in effect it was.
// While work and span are measured, every fork must run as a task, and
// Unfork declines.
func (c *Ctx) Unfork(p unsafe.Pointer) bool {
	if !c.usable() {
		c.refuse()
	}
	x := c.x
	if p == nil {
		panic(errZeroForked)
	}
	h, gen := untagFrame(p)
	if isToken(h) {
		panic(errForkedElsewhere)
	}
	if h.Gen&genTag != gen {
		panic(fmt.Sprintf("tsys: a Forked of task %q taken back after its Join", h.kind.Name))
	}
	if x.pool.ending.Load() {
		panic(abortRun) // a cancellation point, as in JoinForked
	}
	if x.measure || !(x.w.dq.PopOwnIf(h) || x.w.dq.PopPublicIf(h)) {
		return false
	}
	x.offerWork(false)
	x.flushCredit()
	if counting {
		x.w.stats.Spawns--
		x.w.stats.Inlined++
	}
	h.Gen++
	x.w.recycle(h)
	c.Fast.Spawned = c.Fast.Token
	x.forks--
	return true
}

// unjoinedFork is what a frame that forked a task it never joined panics
// with (the fork protocol's rule 3).
func unjoinedFork(h *Header) string {
	return fmt.Sprintf("tsys: task %q, or a task it ran, returned without joining a Forked: join every Fork before the task returns (or use Spawn, whose Future needs no Get)", h.kind.Name)
}
