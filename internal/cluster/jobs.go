package cluster

import (
	"maps"
	"slices"
	"sync"

	"github.com/tsys-go/tsys/internal/runtimecore"
	"github.com/tsys-go/tsys/internal/share"
)

// jobTable is the jobs a node roots or serves, each with its engine, and
// the runtimes they run on: the node's own (main) and any it made for
// jobs served beside another. A message of a job reaches the job's engine
// through of; a runtime runs one job at a time, and stays taken until that
// job's run has stopped.
//
// Lock order: mu before an engine's mu. An engine is made and entered
// under mu in one critical section (BeginJob, startServing), and onMember
// lists the engines under mu after recording a member, so every engine
// hears of every member gossip brings.
type jobTable struct {
	// main is the node's own runtime (Node.Runtime): a job's root runs on
	// it, and the first job the node serves; a job served beside another
	// gets a runtime of its own (idleRuntimeLocked).
	main       *runtimecore.Runtime
	newRuntime func() *runtimecore.Runtime

	mu      sync.Mutex
	engines map[uint64]*engine
	// home is the engine that last ran on main, whose counters the node's
	// Snapshot shows beside main's workers.
	home *engine
	// idle are the runtimes no engine uses now, main among them when it
	// is free.
	idle []*runtimecore.Runtime
	// wake (cap 1) tells the node's tick that a job arrived, in case it
	// stopped its clock for want of one (idletick.go).
	wake chan struct{}
}

func newJobTable(newRuntime func() *runtimecore.Runtime) *jobTable {
	rt := newRuntime()
	return &jobTable{main: rt, newRuntime: newRuntime, engines: map[uint64]*engine{}, idle: []*runtimecore.Runtime{rt}, wake: make(chan struct{}, 1)}
}

// of is the engine of job, or nil when the node neither roots nor serves
// it.
func (t *jobTable) of(job uint64) *engine {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.engines[job]
}

// list is the engines, in the order of their jobs' arrival (share.Sort).
func (t *jobTable) list() []*engine {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.listLocked()
}

// listLocked is list with mu held.
func (t *jobTable) listLocked() []*engine {
	out := slices.Collect(maps.Values(t.engines))
	slices.SortFunc(out, func(a, b *engine) int { return share.Compare(a.info, b.info) })
	return out
}

// rooted is the job the node is the root of, or nil.
func (t *jobTable) rooted() *Job {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.engines {
		if e.rooted != nil {
			return e.rooted
		}
	}
	return nil
}

// enterLocked makes e the engine of its job. mu held.
func (t *jobTable) enterLocked(e *engine) {
	t.engines[e.info.ID] = e
	if e.rt == t.main {
		t.home = e
	}
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// homeEngine is the engine that last ran on main, and whether it still
// has its job here.
func (t *jobTable) homeEngine() (e *engine, current bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.home, t.home != nil && t.engines[t.home.info.ID] == t.home
}

// idleRuntimeLocked takes a runtime no engine uses, main first, or makes
// one. mu held.
func (t *jobTable) idleRuntimeLocked() *runtimecore.Runtime {
	if t.takeLocked(t.main) {
		return t.main
	}
	if k := len(t.idle); k > 0 {
		rt := t.idle[k-1]
		t.idle = t.idle[:k-1]
		return rt
	}
	return t.newRuntime()
}

// takeLocked takes rt from the idle runtimes, if it is there. mu held.
func (t *jobTable) takeLocked(rt *runtimecore.Runtime) bool {
	i := slices.Index(t.idle, rt)
	if i < 0 {
		return false
	}
	t.idle = slices.Delete(t.idle, i, i+1)
	return true
}

// remove forgets e, and frees its runtime for the next job: e's run is
// over.
func (t *jobTable) remove(e *engine) {
	t.forget(e)
	t.release(e.rt)
}

// forget takes e out of the table: messages of its job no longer reach
// it. Its runtime stays taken until its run has stopped (release): a job
// given that runtime before would have its borrowed tasks cleared with the
// old run's.
func (t *jobTable) forget(e *engine) {
	t.mu.Lock()
	if t.engines[e.info.ID] == e {
		delete(t.engines, e.info.ID)
	}
	t.mu.Unlock()
	e.borrower.stopWaiting()
}

// release frees rt, whose run has stopped, for the next job.
func (t *jobTable) release(rt *runtimecore.Runtime) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !slices.Contains(t.idle, rt) {
		t.idle = append(t.idle, rt)
	}
}

// holding is how many borrowed tasks the node has not finished, over all
// its jobs.
func (t *jobTable) holding() (sum int) {
	for _, e := range t.list() {
		sum += e.borrowed.len()
	}
	return sum
}
