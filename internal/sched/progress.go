package sched

import "sync/atomic"

// Progress is what a run's tasks reported of its progress (Executor.
// AddProgress): units done, summed over its tasks, and the largest total
// any of them named. Zero both when none reported.
type Progress struct {
	Done  int64 `json:"done"`
	Total int64 `json:"total,omitempty"` // 0: no task named one
}

// Reported says whether any task reported progress.
func (p Progress) Reported() bool { return p.Done != 0 || p.Total != 0 }

// Add sums another node's report into p: units add up, as each node counts
// its own tasks' units; the total is the largest named, as every task that
// names one names the job's.
func (p *Progress) Add(o Progress) {
	p.Done += o.Done
	p.Total = max(p.Total, o.Total)
}

// progressTotal is the largest total a task of the run named. A task that
// names one is rare next to one that adds units, so a CAS loop that runs
// only when the total grows costs the units' path nothing.
type progressTotal struct{ v atomic.Int64 }

func (t *progressTotal) raise(total int64) {
	for {
		old := t.v.Load()
		if total <= old || t.v.CompareAndSwap(old, total) {
			return
		}
	}
}

// AddProgress adds units done to the run's progress, on the worker the
// executor holds: each worker counts its own, so that tasks adding units
// on every worker do not contend on one cache line. total, when above 0,
// is the run's total as the task knows it.
func (c *Ctx) AddProgress(units, total int64) {
	c.Check()
	x := c.x
	x.w.progress.Add(units)
	if total > 0 {
		x.pool.view.progressTotal.raise(total)
	}
}

// Progress is the current or last run's progress as its tasks reported it
// so far. Safe from any goroutine at any time; each run starts it from
// zero.
func (v *View) Progress() Progress {
	var out Progress
	for _, w := range v.pool.workers {
		out.Done += w.progress.Load()
	}
	out.Total = v.progressTotal.v.Load()
	return out
}
