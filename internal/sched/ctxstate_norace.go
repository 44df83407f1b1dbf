//go:build !race

package sched

import "sync/atomic"

// setState stores a Ctx's state: a plain store, since an atomic one (an
// exchange on amd64) would cost every closure body two. Only Check reads
// the state from another goroutine, to name a mistake already made; it
// loads a whole word, old or new.
func setState(s *uint32, v uint32) { *s = v }

// stateOf loads a Ctx's state.
func stateOf(s *uint32) uint32 { return atomic.LoadUint32(s) }
