package balance

import (
	"math"
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
	// said is the load the last report told (Workers 0: not known), and
	// news whether a task arrived since: until either changes, another
	// report would say nothing new, and the next is due only after
	// steadyReportEvery (steady).
	said clusterpolicy.Load
	news bool
	// rates: the policy's peers read the rate in a report (RatePolicy), so
	// a rate moved by a tenth is news too.
	rates   bool
	reports int64
	advice  clusterpolicy.Advice
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

// steadyReportEvery is how often a node whose load stays as its last
// report told it reports it again: the same ready tasks, the same idle
// workers, no task arrived since (and, rate-aware, a rate within a
// tenth). Its peers know it already, and each report costs every peer a
// message that wakes it, which is most of what a node serving a job whose
// work is all elsewhere costs (bench/README.md, "An idle node"). A node
// whose load changes reports a period after its last report;
// a task that arrives is a change even when the counts read the same at
// the tick, since a peer gives a node one task per report it hears; and a
// peer that joins hears at once (joined).
const steadyReportEvery = time.Second

// nextDue is when the reporter next needs the time at load self: the
// periodic report, or the end of the demand hold, which changes the
// Advice. It is all an idle node needs (it has nothing to give), and all
// a busy one needs while no give could come of its load alone.
func (r *reporter) nextDue(now time.Time, self clusterpolicy.Load, period time.Duration) time.Time {
	due := r.reportDue(self, period)
	if now.Before(r.demandUntil) && r.demandUntil.Before(due) {
		due = r.demandUntil
	}
	return due
}

// reportDue is when the next periodic report is due at load self: a
// period after the last, or steadyReportEvery after it while self is what
// the last told.
func (r *reporter) reportDue(self clusterpolicy.Load, period time.Duration) time.Time {
	if r.steady(self) {
		return r.lastReport.Add(max(period, steadyReportEvery))
	}
	return r.lastReport.Add(period)
}

// steady says whether a report of self would tell the peers nothing the
// last one did not.
func (r *reporter) steady(self clusterpolicy.Load) bool {
	if r.said.Workers == 0 || r.news || self.Workers == 0 {
		return false
	}
	if self.Ready != r.said.Ready || self.Idle != r.said.Idle || self.Workers != r.said.Workers {
		return false
	}
	return !r.rates || math.Abs(self.Rate-r.said.Rate) <= r.said.Rate/10
}

// due reports whether the periodic report is due at now, at load self.
func (r *reporter) due(now time.Time, self clusterpolicy.Load, period time.Duration) bool {
	return !now.Before(r.reportDue(self, period))
}

// report counts a report of self to every peer; a zero self (Workers 0)
// is a load not known, after which the next report is due a period later.
func (r *reporter) report(now time.Time, self clusterpolicy.Load) clusterpolicy.Action {
	r.lastReport = now
	r.said, r.news = self, false
	r.reports++
	return clusterpolicy.Action{Kind: clusterpolicy.Report}
}

// joined reports at once to a peer that joins while this node's reports
// are steady: the newcomer would not hear of it for steadyReportEvery.
func (r *reporter) joined(now time.Time) []clusterpolicy.Action {
	if r.said.Workers == 0 {
		return nil // a report is due within a period anyway
	}
	return []clusterpolicy.Action{r.report(now, r.said)}
}

// hungry reports at once, unless a report went out within a quarter
// period or there is nobody to tell.
func (r *reporter) hungry(now time.Time, period time.Duration, peers int) []clusterpolicy.Action {
	r.holdDemand(now, period)
	if peers == 0 || now.Sub(r.lastReport) < period/4 {
		return nil
	}
	// The load is not known here (a worker ran dry; others may work): the
	// next report is due a period later.
	return []clusterpolicy.Action{r.report(now, clusterpolicy.Load{})}
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
func (r *reporter) StealRequest(_ time.Time, from clusterpolicy.NodeID, _ int, _ clusterpolicy.Load) clusterpolicy.Action {
	return clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: from}
}

// StealReply implements clusterpolicy.Policy: tasks pushed to this node arrive as
// answers to no request; the next report, a period after the last, tells
// the others.
func (r *reporter) StealReply(_ time.Time, _ clusterpolicy.NodeID, n int) []clusterpolicy.Action {
	if n > 0 {
		r.news = true
	}
	return nil
}

// Pushed implements clusterpolicy.Policy: nothing is deferred.
func (r *reporter) Pushed(time.Time, int) []clusterpolicy.Action { return nil }
