package runtimeseam

import (
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/sched"
)

// Inside is what a runtime holds.
type Inside struct {
	// Main is the runtime's own pool, which a run takes when no other run
	// has it, and which the cluster layer drives.
	Main *sched.Pool
	// Last is the pool of the last run to end (its per-worker counters and
	// span); Main before any run.
	Last   *sched.Pool
	Inline inline.Policy
}

// Inspect returns what the *tsys.Runtime rt holds. Package tsys sets it;
// it panics, saying so, when rt is not a non-nil *tsys.Runtime.
var Inspect func(rt any) Inside

// Factoring is the tsys.LoopOption that makes an adaptive loop cut the
// pieces it exposes to thieves by Cesar et al.'s dynamic adjusting
// factoring instead of in halves. It gained nothing over halving
// (bench/README.md, "Factoring against halving"), so it is the
// laboratory's (rt --flat --split factoring), not a program's. Package
// tsys sets it; its type is any for the same reason Inspect is a
// variable.
var Factoring any
