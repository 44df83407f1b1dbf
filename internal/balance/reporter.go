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
	// waitingSaid: the last report went out while every worker of the
	// node waited and nothing was ready (Load.Waiting). Until the load
	// changes, another says nothing new: the next is due only after
	// waitingReportEvery.
	waitingSaid bool
	reports     int64
	advice      clusterpolicy.Advice
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

// waitingReportEvery is how often a node whose workers all wait reports
// its unchanged load. Its peers have heard it wants work, and it reports
// again at once when that changes (a task arrived, a worker ran dry
// again: Hungry); meanwhile a report each period would only cost every
// peer a message, which is most of what an idle balancing node costs
// (bench/README.md, "An idle node"). A peer that joins hears from it at
// once (Membership).
const waitingReportEvery = time.Second

// nextDue is when the reporter next needs the time: the periodic report,
// or the end of the demand hold, which changes the Advice. It is all an
// idle node needs (it has nothing to give), and all a busy one needs
// while no give could come of its load alone.
func (r *reporter) nextDue(now time.Time, self clusterpolicy.Load, period time.Duration) time.Time {
	due := r.reportDue(self, period)
	if now.Before(r.demandUntil) && r.demandUntil.Before(due) {
		due = r.demandUntil
	}
	return due
}

// reportDue is when the next periodic report is due at load self: a
// period after the last, or waitingReportEvery after it while self still
// says what it said, that every worker waits.
func (r *reporter) reportDue(self clusterpolicy.Load, period time.Duration) time.Time {
	if r.waitingSaid && !self.Waiting() {
		return r.lastReport.Add(period) // it changed: tell the peers at once
	}
	return r.nextReport
}

// due reports whether the periodic report is due at now, at load self.
func (r *reporter) due(now time.Time, self clusterpolicy.Load, period time.Duration) bool {
	return !now.Before(r.reportDue(self, period))
}

// report counts a load report of self to every peer, the next due after
// period, or after waitingReportEvery when self says every worker waits.
func (r *reporter) report(now time.Time, period time.Duration, self clusterpolicy.Load) clusterpolicy.Action {
	r.lastReport = now
	r.waitingSaid = self.Waiting()
	if r.waitingSaid {
		period = max(period, waitingReportEvery)
	}
	r.nextReport = now.Add(period)
	r.reports++
	return clusterpolicy.Action{Kind: clusterpolicy.Report}
}

// joined reports at once to a peer that joins while this node's last
// report said it waits: the newcomer would not hear of it for
// waitingReportEvery.
func (r *reporter) joined(now time.Time, period time.Duration) []clusterpolicy.Action {
	if !r.waitingSaid {
		return nil
	}
	return []clusterpolicy.Action{r.report(now, period, clusterpolicy.Load{})}
}

// hungry reports at once, unless a report went out within a quarter
// period or there is nobody to tell.
func (r *reporter) hungry(now time.Time, period time.Duration, peers int) []clusterpolicy.Action {
	r.holdDemand(now, period)
	if peers == 0 || now.Sub(r.lastReport) < period/4 {
		return nil
	}
	// The load is not known here (a worker ran dry; others may work): the
	// report is taken for a change, and the next is due a period later.
	return []clusterpolicy.Action{r.report(now, period, clusterpolicy.Load{})}
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
