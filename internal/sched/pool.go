package sched

import (
	"context"
	"runtime"
	"sync"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/xorshift"
)

// Pool is the set of workers of one node and the executors that run them,
// as its owner sees it: the one that makes it, sets it up between runs
// and runs jobs on it (package tsys's Runtime; the cluster engine, which
// serves other nodes' jobs on it). It runs one job at a time (Run, Serve,
// RunSolo); between runs no goroutine of it exists.
//
// The pool has three other sides, each its own type, reached through
// it, each with its own concurrency contract:
//
//   - crew (crew.go, idle.go): the run's executors and the queues through
//     which a worker passes between them; only the executors call it.
//   - Port (port.go): what the cluster engine calls from its own
//     goroutines, at any time: lend, inject, complete, fail, the policy's
//     advice, the node's load.
//   - View (view.go): what readers call from any goroutine, at any time:
//     counters, progress, the timeline, the live stream.
//
// Concurrency: Run, TryRun, RunSolo, TryRunSolo and Serve may be called
// from any goroutine; one runs at a time (runMu), the others wait or, the
// Try forms, return at once. The setters (SetWorkSpan, SetCheckCopies,
// SetTreeRecorder, SetTimeline) are for between runs. Workers and Failed
// may be called at any time.
type Pool struct {
	// workers never change after NewPool.
	workers    []*Worker
	localTries int // steal attempts at home before a worker counts as hungry
	// ending is set when the current run fails or ends, and between runs
	// (Runs in the package doc): every executor reads it, often, and
	// FastPath.Ending points to it. Stored under crew.mu, so that stop
	// finds every executor that queued before it and none queues after.
	ending endingFlag

	// The pool's other sides, by value: the workers read their fields
	// with one load, as they would the pool's own.
	crew crew
	port Port
	view View

	runMu sync.Mutex // one run at a time

	// The current run, guarded by crew.mu: the cluster fails a run from
	// its own goroutines (Port.Fail).
	err    error
	failed chan struct{}
	// runCtx is the current run's context, which its tasks see
	// (Ctx.Context): set before the run's executors start, cancelled
	// with the run's error when it fails and with errRunEnded when it
	// ends, so a task still running then sees Done.
	runCtx    context.Context
	cancelRun context.CancelCauseFunc
	// root is the current run's root task; nil while serving.
	root *Header

	// Fixed for the run, set before its executors start.
	//
	// caller is the current run's caller's context, which the executors
	// watch (callerwatch.go).
	caller callerWatch
	// alone: the current run is solo, or the pool has one worker, and no
	// cluster drives it: nobody could take a task (solo.go).
	alone bool
	// soloX is the executor of the pool's last solo run, whose pace the
	// next one starts from.
	soloX *Executor

	// Set between runs.
	//
	// measure: work and span are measured (workspan.go); recorder, when
	// set, records the task tree as they are.
	measure  bool
	recorder *TreeRecorder
	// checkCopies: tasks that may cross nodes run on copies, as on
	// another node (SetCheckCopies).
	checkCopies bool
}

// NewPool makes a pool of n workers with the given inlining policy.
func NewPool(n int, inl inline.Policy) *Pool {
	if n < 1 {
		n = 1
	}
	p := &Pool{localTries: localTries(n)}
	p.crew.init(p)
	p.port.pool = p
	p.view.pool = p
	for i := 0; i < n; i++ {
		w := &Worker{ID: i, inline: inl, rng: xorshift.Seed(uint64(i))}
		w.setFloor(0)
		p.workers = append(p.workers, w)
	}
	p.crew.maxLooking = int32(max(1, runtime.GOMAXPROCS(0)))
	p.crew.capLooking = n > int(p.crew.maxLooking)
	p.port.share.Store(int32(n))
	// No run is on: a pool begins as it is between runs, so that what
	// comes before its first run (the cluster makes a job's pool before
	// its serving run starts, and a peer's word that the job failed can
	// come in between) fails no run, as after one.
	p.ending.Store(true)
	return p
}

// Workers reports the number of workers.
func (p *Pool) Workers() int { return len(p.workers) }

// Port is the pool's side for the cluster engine (port.go).
func (p *Pool) Port() *Port { return &p.port }

// View is the pool's side for its readers (view.go).
func (p *Pool) View() *View { return &p.view }

// SetCheckCopies makes every task that may cross nodes run on a copy of
// its argument, made by its codec, and give back a copy of its result,
// even here, as it would on another node: a program that depends on
// sharing memory with its tasks then gives its wrong answer on one node,
// in its own tests. Call between runs.
func (p *Pool) SetCheckCopies(on bool) { p.checkCopies = on }

// SetWorkSpan turns the measuring of work and span (workspan.go) on or
// off for the pool's next runs. Not during a run.
func (p *Pool) SetWorkSpan(on bool) { p.measure = on }

// SetTreeRecorder makes the pool record its next runs' task trees into r
// (nil: stop). It takes effect only while work and span are measured. Not
// during a run.
func (p *Pool) SetTreeRecorder(r *TreeRecorder) { p.recorder = r }

// SetTimeline makes the pool record its next runs into tl (nil: stop).
// Not during a run.
func (p *Pool) SetTimeline(tl *Timeline) { p.view.timeline.Store(tl) }

// Failed reports whether the run has failed (for tests and diagnostics).
func (p *Pool) Failed() bool {
	p.crew.mu.Lock()
	defer p.crew.mu.Unlock()
	return p.err != nil
}
