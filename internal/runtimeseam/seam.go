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
