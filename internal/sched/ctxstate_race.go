//go:build race

package sched

import "sync/atomic"

// setState stores a Ctx's state. Under the race detector it is an atomic
// store, so that Check on a goroutine of the program's own, which is what
// it is there to catch, is not itself reported as a race.
func setState(s *uint32, v uint32) { atomic.StoreUint32(s, v) }

// stateOf loads a Ctx's state.
func stateOf(s *uint32) uint32 { return atomic.LoadUint32(s) }
