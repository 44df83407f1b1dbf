package sched

import (
	"sync/atomic"

	"github.com/tsys-go/tsys/inline"
)

// Worker is one slot of parallelism: a deque and the counters of the work
// done through it. Exactly one executor holds a worker at a time, and only
// that executor pushes, pops or counts on it; a worker changes hands only
// through a channel send or the pool's mutex, which orders the counters'
// plain writes.
type Worker struct {
	ID int
	dq Deque

	// Written by the holding executor only (plain, to keep spawns cheap).
	stats  Stats
	inline inline.Policy
	// events are the timeline's records, when one is kept.
	events []timelineEvent
	// Caches is a per-kind slot the task layer uses for frame slabs.
	Caches []any
	// reusable are joined frames of forked tasks, by kind ID, ready for
	// the next fork of that kind (Executor.ReuseFrame).
	reusable [][]*Header

	// Counted while idle, when the pool may read them concurrently.
	stealAttempts atomic.Int64
	localSteals   atomic.Int64
}

// Stats returns the worker's counters. Only while no executor holds it.
func (w *Worker) Stats() Stats {
	s := w.stats
	// Only pushes are counted as spawns on the way; inlined spawns are
	// counted once, as Inlined, to keep the inlined path to one increment.
	s.Spawns += s.Inlined
	s.StealAttempts += w.stealAttempts.Load()
	s.LocalSteals += w.localSteals.Load()
	return s
}

func (w *Worker) resetStats() {
	w.stats = Stats{}
	w.events = w.events[:0]
	w.stealAttempts.Store(0)
	w.localSteals.Store(0)
}
