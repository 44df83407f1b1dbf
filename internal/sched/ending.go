package sched

import "sync/atomic"

// endingFlag is a pool's ending flag (see "Runs" in the package doc): set
// when the run fails or ends, after which no task starts, and no plain
// call a spawn became either. A word of its own, which FastPath.Ending
// points to, so that package tsys tests it inline with one load where the
// program's code runs next without a spawn that would ask AskSpawn.
type endingFlag struct{ bits atomic.Uint64 }

// Load reports whether the flag is set.
func (e *endingFlag) Load() bool { return e.bits.Load() != 0 }

// Store sets or clears the flag. Set, the word has Credit's top bit
// (Spent), so that Spawn's fast path, which ORs it into the credit it
// tests, takes the slow path, where AskSpawn unwinds the task.
func (e *endingFlag) Store(on bool) {
	var b uint64
	if on {
		b = 1 << Spent
	}
	e.bits.Store(b)
}

// Aborted is what a task unwinds with once its run has ended (abortRun),
// for package tsys's inlined checks of FastPath.Ending; nothing else may
// panic with it or recover it.
func Aborted() any { return abortRun }
