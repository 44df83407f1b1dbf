package sched

import (
	"sync/atomic"
	"time"
)

// Counters readable while a run goes on, for /metrics and the dashboard
// (package monitor). A worker's holder counts on plain fields (Worker.
// stats) to keep spawns cheap, and publishes the ones a reader needs
// with each inlining grant (about every maxStaleness of inlined work) and
// whenever it goes idle: one atomic store each per publication, never one
// per spawn. A reader may see them one grant, or one task frame, late.

// livePub is what a worker publishes.
type livePub struct {
	spawns  atomic.Int64 // stats.Spawns: the pushes
	inlined atomic.Int64
}

// publish makes the holder's counters readable by Live.
func (w *Worker) publish() {
	w.tasksDone.Store(w.stats.TasksRun)
	if counting {
		w.live.spawns.Store(w.stats.Spawns)
		w.live.inlined.Store(w.stats.Inlined)
	}
}

// Runs counts the pool's runs so far, the current one included: the
// counters Live reads start from zero when it goes up, and a reader that
// sees a run number sees that run's counts or later ones.
func (v *View) Runs() uint64 { return v.runs.Load() }

// Live returns each worker's counters of the current or last run as last
// published, with its idle and busy time up to now. Safe from any
// goroutine at any time; each run starts them from zero.
func (v *View) Live(now time.Time) []Stats {
	span, end, ran := v.runSpan(now)
	workers := v.pool.workers
	out := make([]Stats, len(workers))
	for i, w := range workers {
		var idle time.Duration
		if ran {
			idle = w.idleTime(end)
		}
		inlined := w.live.inlined.Load()
		out[i] = Stats{
			Spawns:        w.live.spawns.Load() + inlined,
			Inlined:       inlined,
			TasksRun:      w.tasksDone.Load(),
			LocalSteals:   w.localSteals.Load(),
			StealAttempts: w.stealAttempts.Load(),
			StolenFrom:    w.stolenFrom.Load(),
			IdleNanos:     int64(idle),
			BusyNanos:     int64(max(0, span-idle)),
		}
	}
	return out
}
