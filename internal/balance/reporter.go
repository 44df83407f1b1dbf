package balance

import (
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// reporter is what both balancing policies share: they report the node's
// load to every peer each period, and at once (at most every quarter
// period) when a worker runs dry; they answer no steal request, since they
// push; and they advise their engine when a hungry worker is worth hearing
// from.
type reporter struct {
	lastReport time.Time
	nextReport time.Time
	reports    int64
	advice     clusterpolicy.Advice
	// demandUntil: a peer reported it had run dry, or the job began, or
	// this node ran dry; until then the node keeps exposeForPeers more
	// tasks stealable, for pushes to find.
	demandUntil time.Time
}

// exposeForPeers is how many ready tasks beyond the inlining threshold a
// balancing node keeps while peers want work (as fishing's Expose): a push
// can only move a ready task, and an inlined call is never one, so a node
// that inlines all but K leaves its peers nothing to be given
// (bench/README.md, "Simulated clusters").
const exposeForPeers = 16

// holdDemand keeps the Expose for two periods from now: the next report
// says whether peers still want work.
func (r *reporter) holdDemand(now time.Time, period time.Duration) {
	if until := now.Add(2 * period); until.After(r.demandUntil) {
		r.demandUntil = until
	}
}

// Advice implements clusterpolicy.Policy.
func (r *reporter) Advice() clusterpolicy.Advice { return r.advice }

// JobStarted is the part of clusterpolicy.Policy's JobStarted both policies share:
// every node of a fresh job wants work, so the first splits keep their big
// pieces stealable.
func (r *reporter) jobStarted(now time.Time, period time.Duration, peers int) {
	r.holdDemand(now, period)
	r.settle(now, period, peers)
}

// nextDue is when the reporter next needs the time: the periodic report,
// or the end of the demand hold, which changes the Advice. It is all an
// idle node needs (it has nothing to give), and all a busy one needs
// while no give could come of its load alone.
func (r *reporter) nextDue(now time.Time) time.Time {
	due := r.nextReport
	if now.Before(r.demandUntil) && r.demandUntil.Before(due) {
		due = r.demandUntil
	}
	return due
}

// due reports whether the periodic report is due at now.
func (r *reporter) due(now time.Time) bool { return !now.Before(r.nextReport) }

// report counts a load report to every peer, the next due after period.
func (r *reporter) report(now time.Time, period time.Duration) clusterpolicy.Action {
	r.lastReport = now
	r.nextReport = now.Add(period)
	r.reports++
	return clusterpolicy.Action{Kind: clusterpolicy.Report}
}

// hungry reports at once, unless a report went out within a quarter
// period or there is nobody to tell.
func (r *reporter) hungry(now time.Time, period time.Duration, peers int) []clusterpolicy.Action {
	r.holdDemand(now, period)
	if peers == 0 || now.Sub(r.lastReport) < period/4 {
		return nil
	}
	return []clusterpolicy.Action{r.report(now, period)}
}

// settle recomputes the advice at now: a hungry worker is worth hearing
// from when a report may go out, and tasks are kept stealable while peers
// want work.
func (r *reporter) settle(now time.Time, period time.Duration, peers int) {
	r.advice = clusterpolicy.Advice{}
	if peers > 0 && now.Before(r.demandUntil) {
		r.advice.Expose = exposeForPeers
	}
	switch {
	case peers == 0:
		r.advice.HungryAfter = clusterpolicy.Never
	case !r.lastReport.IsZero():
		r.advice.HungryAfter = r.lastReport.Add(period / 4)
	}
}

// StealRequest implements clusterpolicy.Policy: a balancing node answers no
// request (a fishing node is refused when a job starts; one that asks
// anyway gets nothing).
func (r *reporter) StealRequest(_ time.Time, from clusterpolicy.NodeID, _, _ int) clusterpolicy.Action {
	return clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: from}
}

// StealReply implements clusterpolicy.Policy: tasks pushed to this node arrive as
// answers to no request; the next report tells the others.
func (r *reporter) StealReply(time.Time, clusterpolicy.NodeID, int) []clusterpolicy.Action {
	return nil
}

// Pushed implements clusterpolicy.Policy: nothing is deferred.
func (r *reporter) Pushed(time.Time, int) []clusterpolicy.Action { return nil }
