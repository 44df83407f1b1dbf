package tsys

import "fmt"

// AddProgress reports that the calling task did units more of the job's
// work, out of total units for the whole job (0 when the task does not
// know it): what a person watching the job sees as its progress bar, in
// tsys run's status line on a terminal and on the dashboard
// (tsys node --http).
//
//	tsys.For(c, 0, len(rows), func(c *tsys.Ctx, lo, hi int) {
//		for _, row := range rows[lo:hi] {
//			check(row)
//		}
//		c.AddProgress(int64(hi-lo), int64(len(rows)))
//	})
//
// Units add up over the job's tasks on every node, as a task knows what it
// did but in a fork-join job none knows what the others did; the total is
// the largest any task named. A node counts the units of its own tasks on
// each worker apart, so a call costs an uncontended atomic add: it may be
// called per item of a loop, though once per chunk or leaf task is enough
// for a bar. The root's status line and the dashboard read the nodes'
// counts when they poll them, about once a second: what a remote node
// reports shows within a poll and the time one answer takes.
//
// Negative units or a negative total are a programming error: AddProgress
// panics, which fails the job with a TaskError saying so.
func (c *Ctx) AddProgress(units, total int64) {
	if units < 0 || total < 0 {
		panic(fmt.Sprintf("tsys: Ctx.AddProgress(%d, %d): units and total count work done and to do, 0 or more", units, total))
	}
	c.sched().AddProgress(units, total)
}
