package sched

import (
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/xorshift"
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
	events chunkLog[timelineEvent]
	// kinds is what the worker keeps for each task kind, by Kind.ID.
	kinds []PerKind

	// rng picks the victims of the worker's local steals.
	rng xorshift.State

	// Counted while idle, when the pool may read them concurrently.
	stealAttempts atomic.Int64
	localSteals   atomic.Int64
	// stolenFrom counts the tasks thieves took from this worker's deque;
	// thieves write it.
	stolenFrom atomic.Int64
	idle       idleClock
	// tasksDone is stats.TasksRun as the holder last published it (with
	// each allowCCall grant and when it goes idle), for readers outside
	// the run: one atomic store per grant rather than one per task.
	tasksDone atomic.Int64
	// live are the other counters the holder publishes (live.go).
	live livePub
	// progress counts the units of progress the run's tasks reported on
	// this worker (progress.go); only its holder adds to it.
	progress atomic.Int64
}

// PerKind is what a worker keeps for one task kind: where its new frames
// come from, and the joined frames ready for reuse.
type PerKind struct {
	// Slab is the task layer's current frame slab for the kind (package
	// tsys knows its type).
	Slab any
	// reusable are joined frames of forked tasks (Ctx.JoinForked),
	// for the next spawn of the kind.
	reusable []*Header
}

// PerKind returns the worker's slot for kind k. Only for its holder.
func (w *Worker) PerKind(k *Kind) *PerKind {
	if k.ID >= len(w.kinds) {
		w.kinds = append(w.kinds, make([]PerKind, k.ID+1-len(w.kinds))...)
	}
	return &w.kinds[k.ID]
}

// maxReusable bounds the joined frames a worker keeps per kind. A fork
// tree keeps at most its depth times its fan-out pending on a worker.
const maxReusable = 256

// recycle keeps a joined frame for reuse. Holder only.
func (w *Worker) recycle(h *Header) {
	if pk := w.PerKind(h.kind); len(pk.reusable) < maxReusable {
		pk.reusable = append(pk.reusable, h)
	}
}

// reuseFrame returns a joined frame of kind k, or nil if the worker keeps
// none. Holder only. Its Header is ready for a push; the rest of the frame holds the
// last task's argument and result until the caller overwrites them.
func (w *Worker) reuseFrame(k *Kind) *Header {
	pk := w.PerKind(k)
	n := len(pk.reusable)
	if n == 0 {
		return nil
	}
	h := pk.reusable[n-1]
	pk.reusable = pk.reusable[:n-1]
	return h
}

// Stats returns the worker's counters, its busy time out of a run that
// spanned span. Only while no executor holds it.
func (w *Worker) Stats(span time.Duration) Stats {
	s := w.stats
	// Only pushes are counted as spawns on the way; inlined spawns are
	// counted once, as Inlined, to keep the inlined path to one increment.
	s.Spawns += s.Inlined
	s.StealAttempts += w.stealAttempts.Load()
	s.LocalSteals += w.localSteals.Load()
	s.IdleNanos = w.idle.total.Load()
	s.StolenFrom = w.stolenFrom.Load()
	s.BusyNanos = max(0, int64(span)-s.IdleNanos)
	return s
}

func (w *Worker) resetStats() {
	w.stats = Stats{}
	w.events = chunkLog[timelineEvent]{}
	w.stealAttempts.Store(0)
	w.localSteals.Store(0)
	w.stolenFrom.Store(0)
	w.idle.total.Store(0)
	w.idle.since.Store(0)
	w.tasksDone.Store(0)
	w.live.spawns.Store(0)
	w.live.inlined.Store(0)
	w.progress.Store(0)
}
