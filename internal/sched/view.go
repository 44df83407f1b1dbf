package sched

import (
	"sync/atomic"
	"time"
)

// View is the side of a pool that its readers see (Pool.View): the
// workers' counters of the current or last run (Live, WorkerStats),
// progress, work and span, the timeline a run recorded, and the live
// stream of what the workers run, for reports, /metrics and the
// dashboard.
//
// Concurrency: Runs, Live, Progress, ExecutorsStarted and the stream's
// methods may be called from any goroutine at any time, during a run or
// between runs; they read atomics the workers publish, late by a grant
// at most (live.go). WorkerStats, Span, Timeline and TimelineData read
// what a run leaves, and are for between runs (each says so). View's
// fields are written by the run's goroutine at a run's start and end
// (Pool.sessionLocked), and by the workers as they run (timeline and
// stream records).
type View struct {
	pool *Pool

	// timeline is read by the engine's goroutines too (notes), and set
	// between runs (Pool.SetTimeline).
	timeline atomic.Pointer[Timeline]
	// stream, when set, keeps the workers' last events for a live view
	// (stream.go); streamSw switches it.
	stream   atomic.Pointer[Stream]
	streamSw streamSwitch
	// began and ended bound the current or last run (UnixNano; ended is 0
	// while it runs), for BusyTime.
	began, ended atomic.Int64
	// runs counts the runs (Runs).
	runs atomic.Uint64
	// lastSpan is the span of the last run that measured it (workspan.go).
	lastSpan time.Duration
	// progressTotal is the largest total the run's tasks reported
	// (progress.go).
	progressTotal progressTotal
}

// WorkerStats returns each worker's counters of the last run.
func (v *View) WorkerStats() []Stats {
	workers := v.pool.workers
	out := make([]Stats, len(workers))
	span := v.span()
	for i, w := range workers {
		out[i] = w.Stats(span)
	}
	return out
}

// Span is the critical path of the last run that measured it
// (Pool.SetWorkSpan): the clock its root task finished at.
func (v *View) Span() time.Duration { return v.lastSpan }

// ExecutorsStarted reports how many executor goroutines the last run
// started: the workers, plus one for each task that was blocked while no
// spare executor was free.
func (v *View) ExecutorsStarted() int { return int(v.pool.crew.started.Load()) }

// span is how long the current or last run has lasted.
func (v *View) span() time.Duration {
	began, end := v.began.Load(), v.ended.Load()
	if began == 0 {
		return 0
	}
	if end == 0 || end < began {
		end = time.Now().UnixNano()
	}
	return time.Duration(end - began)
}

// runSpan is how long the current or last run has lasted at now, and when
// its span ends (now, or when it ended); ok is false before any run.
func (v *View) runSpan(now time.Time) (span time.Duration, end time.Time, ok bool) {
	began := v.began.Load()
	if began == 0 {
		return 0, now, false
	}
	e := now.UnixNano()
	if ended := v.ended.Load(); ended != 0 {
		e = ended
	}
	return time.Duration(max(0, e-began)), time.Unix(0, e), true
}

// Workers returns the number of workers of the pool.
func (v *View) Workers() int { return len(v.pool.workers) }

// MayBeStolen reports whether a task pushed now could be taken by anyone
// but the executor that pushes it: the pool has other workers, or, for a
// task that may cross nodes (lendable), other nodes want work from it. A
// loop with nobody to lend to runs whole.
func (v *View) MayBeStolen(lendable bool) bool {
	p := v.pool
	return len(p.workers) > 1 || lendable && p.port.expose.Load() > 0
}

// Hungry returns how many workers of the pool are looking for work or
// parked for want of it, at this moment: a loop about to begin gives each
// a piece of its range.
func (v *View) Hungry() int {
	p := v.pool
	return int(p.crew.nSpinning.Load() + p.crew.nIdle.Load())
}
