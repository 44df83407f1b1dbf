package sched

import (
	"time"
	"unsafe"
)

// FastPath is the part of an executor that Spawn touches on every call. It
// is exported for package tsys only; user code must not touch it.
//
// Go inlines no cross-package method call inside the instantiated body of a
// generic function, so Spawn (generic over the task's types) reads and
// writes these fields directly instead of calling methods: an inlined spawn
// then costs a decrement, a compare and the call of the task function.
type FastPath struct {
	// Credit is how many more spawns may run as direct calls before
	// allowCCall is asked again. Spawn decrements it and takes the slow
	// path (AllowCCall, then maybe Push) when it goes negative.
	Credit int
	// Spawned carries a T-call's frame from Push back to the Spawn that
	// made it; Spawn clears it right away, so a spawn nested in an inlined
	// call never leaves it set.
	Spawned unsafe.Pointer
}

// maxStaleness bounds how long a cached "yes, inline" may stand. Spawns run
// as direct calls without asking allowCCall for at most about this long,
// so a worker whose deque thieves have emptied starts exposing tasks again
// within it.
const maxStaleness = 10 * time.Microsecond

// maxCredit caps a grant. Sizing a grant reads the clock (~50 ns here), so
// grants must span many fine spawns: at UTS's ~100 ns per spawn a 2 us
// window cost 6% of the search in clock reads, at 10 us it is about 1%.
const maxCredit = 256

// AllowCCall is NewTS's allowCCall, asked on the slow path of Spawn: may
// this spawn run as a direct call? It counts the answer and, when it is
// yes, grants credit for more spawns, sized so that the grant lasts about
// maxStaleness at the measured pace of inlined spawns: 1 for coarse tasks,
// so that every spawn asks, up to maxCredit for the finest.
func (x *Executor) AllowCCall() bool {
	if x.pool.ending.Load() {
		// A cancellation point for programs that inline nearly every
		// spawn: the credit bounds how long until the next one.
		panic(abortRun)
	}
	w := x.w
	// Arriving here means the last grant was spent in full.
	spent := x.granted
	w.stats.Inlined += int64(spent)
	x.granted, x.Fast.Credit = 0, 0
	if !w.inline.AllowCCall(w.dq.Len()) {
		x.grantedAt = time.Time{}
		return false
	}
	w.stats.Inlined++
	now := time.Now()
	if spent > 0 && !x.grantedAt.IsZero() {
		x.pace = now.Sub(x.grantedAt) / time.Duration(spent)
	}
	n := 1
	switch {
	case x.pace == 0:
		n = maxCredit // faster than the clock can tell
	case x.pace > 0:
		n = int(max(1, min(maxStaleness/x.pace, maxCredit)))
	}
	x.granted, x.grantedAt, x.Fast.Credit = n, now, n
	return true
}

// flushCredit counts the spawns inlined on the current grant and drops
// the rest of it: before the executor gives up its worker, and at its end.
func (x *Executor) flushCredit() {
	if x.w != nil && x.granted > 0 {
		x.w.stats.Inlined += int64(x.granted - max(x.Fast.Credit, 0))
	}
	x.granted, x.Fast.Credit = 0, 0
}
