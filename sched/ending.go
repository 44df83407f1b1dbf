package sched

import "sync/atomic"

// endingFlag is a pool's ending flag (see "Runs" in the package doc): set
// when the run fails or ends, after which no task starts and no spawn,
// not even one the inlining policy would make a plain call, runs its
// child. It is kept as Credit's top bit (Spent) in a word of its own, so
// that the fast path of a spawn tests both with one load and an OR: a
// spawn after the failure takes the slow path, whatever credit is left,
// and AskSpawn unwinds it (FastPath.Ending).
type endingFlag struct{ bits atomic.Uint64 }

// Load reports whether the flag is set.
func (e *endingFlag) Load() bool { return e.bits.Load() != 0 }

// Store sets or clears the flag.
func (e *endingFlag) Store(on bool) {
	var b uint64
	if on {
		b = 1 << Spent
	}
	e.bits.Store(b)
}

// CheckEnding unwinds the calling task if its run has failed or ended: a
// cancellation point for code that runs the program's functions without a
// spawn between them (the next chunk of a loop, the second closure of a
// Join, a Task.Call).
func (x *Executor) CheckEnding() {
	if x.pool.ending.Load() {
		panic(abortRun)
	}
}

// Aborted is what a task unwinds with once its run has ended (abortRun),
// for package tsys's inlined checks of FastPath.Ending; nothing else may
// panic with it or recover it.
func Aborted() any { return abortRun }
