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

// unjoinedFork is what a frame that forked a task it never joined panics
// with (the fork protocol's rule 3).
func unjoinedFork(h *Header) string {
	return fmt.Sprintf("tsys: task %q, or a task it ran, returned without joining a Forked: join every Fork before the task returns (or use Spawn, whose Future needs no Get)", h.kind.Name)
}
