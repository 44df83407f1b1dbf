package balance

import (
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Both balancing policies let an idle node sleep between reports.
var (
	_ clusterpolicy.Sleeper = (*Policy)(nil)
	_ clusterpolicy.Sleeper = (*RatePolicy)(nil)
)

// sleeper is a balancing policy, either one, as its engine's tick sees it.
type sleeper interface {
	clusterpolicy.Policy
	clusterpolicy.Sleeper
}

// sleepersWithPeer are both balancing policies, reporting every 4 ms,
// each with one peer, p, that joined at t0.
func sleepersWithPeer() []sleeper {
	ss := []sleeper{
		newPolicy("p"),
		NewRate("self", RateParams{MinPeriod: 4 * time.Millisecond, MaxPeriod: 4 * time.Millisecond, MoveCost: 100 * time.Microsecond}),
	}
	for _, s := range ss {
		s.Membership(t0, clusterpolicy.MemberEvent{Node: "p", Joined: true})
	}
	return ss
}

// TestIdleNodeIsDueAtItsReport: a node whose workers all wait reports
// that once, and then only every steadyReportEvery while it stays so: it
// is due then, or sooner when the demand hold ends, and ticked between it
// does nothing. Once its load changes it reports a period after the last
// report, and a peer that joins while it waits hears from it at once.
func TestIdleNodeIsDueAtItsReport(t *testing.T) {
	idle := clusterpolicy.Load{Workers: 2, Idle: 2}
	busy := clusterpolicy.Load{Workers: 2, Ready: 3}
	second := t0.Add(steadyReportEvery)
	for _, s := range sleepersWithPeer() {
		if as := s.Tick(ms(0), idle); len(as) != 1 || as[0].Kind != clusterpolicy.Report {
			t.Fatalf("%s: first tick: %v, want a report", s.Name(), as)
		}
		if due := s.NextDue(ms(0), idle); !due.Equal(second) {
			t.Fatalf("%s: due at %v, want the waiting node's next report at %v", s.Name(), due.Sub(t0), steadyReportEvery)
		}
		s.JobStarted(ms(1)) // holds demand for two periods, to 9 ms
		if due := s.NextDue(ms(1), idle); !due.Equal(ms(9)) {
			t.Fatalf("%s: due at %v after the job's start, want the end of the demand hold at 9ms", s.Name(), due.Sub(t0))
		}
		for _, at := range []int{3, 4, 8, 9, 500} {
			if as := s.Tick(ms(at), idle); as != nil {
				t.Fatalf("%s: ticked at %dms, while waiting and not due: %v", s.Name(), at, as)
			}
		}
		if due := s.NextDue(ms(500), idle); !due.Equal(second) {
			t.Fatalf("%s: due at %v, want %v", s.Name(), due.Sub(t0), steadyReportEvery)
		}
		if as := s.Tick(second, idle); len(as) != 1 || as[0].Kind != clusterpolicy.Report {
			t.Fatalf("%s: ticked when due: %v, want a report", s.Name(), as)
		}
		// Tasks arrive: the load changed, reported a period after the last.
		if as := s.Tick(second.Add(time.Millisecond), busy); as != nil {
			t.Fatalf("%s: ticked a millisecond after a report: %v", s.Name(), as)
		}
		if as := s.Tick(second.Add(4*time.Millisecond), busy); len(as) == 0 || as[0].Kind != clusterpolicy.Report {
			t.Fatalf("%s: at work a period after the report: %v, want a report", s.Name(), as)
		}
		// Waiting again, a peer joins: it hears at once.
		s.Tick(second.Add(8*time.Millisecond), idle)
		if as := s.Membership(second.Add(9*time.Millisecond), clusterpolicy.MemberEvent{Node: "q", Joined: true}); len(as) != 1 || as[0].Kind != clusterpolicy.Report {
			t.Fatalf("%s: a peer joined a waiting node: %v, want a report", s.Name(), as)
		}
	}
}

// TestBusyNodeIsDueAtOnceWhileAPeerWants: a node whose workers are all at
// work is due at its report while no peer waits for what it holds, and at
// once while one does (balance: a peer below the limit; rate-aware: a
// peer that ran dry), since its next spawn, no event, would make a Tick
// give. Idle, it has nothing to give and waits for its report.
func TestBusyNodeIsDueAtOnceWhileAPeerWants(t *testing.T) {
	busy := clusterpolicy.Load{Workers: 2, Ready: 0}
	idle := clusterpolicy.Load{Workers: 2, Idle: 2}
	for _, s := range sleepersWithPeer() {
		s.Tick(ms(10), busy) // reports, past every demand hold
		s.LoadReport(ms(10), "p", clusterpolicy.Load{Workers: 2, Ready: 9})
		if due, steady := s.NextDue(ms(10), busy), ms(10).Add(steadyReportEvery); !due.Equal(steady) {
			t.Fatalf("%s: at work, no peer wanting, its load as reported: due at %v, want its steady report at %v", s.Name(), due.Sub(t0), steady.Sub(t0))
		}
		s.LoadReport(ms(11), "p", clusterpolicy.Load{Workers: 2, Idle: 2})
		if due := s.NextDue(ms(11), busy); !due.Equal(ms(11)) {
			t.Fatalf("%s: at work, a peer wanting: due at %v, want now (11ms)", s.Name(), due.Sub(t0))
		}
		if due := s.NextDue(ms(11), idle); due.Before(ms(12)) {
			t.Fatalf("%s: idle, a peer wanting: due at %v, want no sooner than the demand hold or report", s.Name(), due.Sub(t0))
		}
	}
}

// TestSteadyLoadIsReportedOnceASecond: a node whose load stays what its
// last report told reports it again only after steadyReportEvery; a
// changed count, a task that arrived (though the counts read the same)
// or, rate-aware, a rate moved by more than a tenth is reported a period
// after the last report.
func TestSteadyLoadIsReportedOnceASecond(t *testing.T) {
	at := func(ready int, rate float64) clusterpolicy.Load {
		return clusterpolicy.Load{Workers: 2, Ready: ready, Rate: rate}
	}
	reported := func(as []clusterpolicy.Action) bool {
		return len(as) > 0 && as[0].Kind == clusterpolicy.Report
	}
	for _, s := range sleepersWithPeer() {
		if !reported(s.Tick(ms(100), at(3, 2))) {
			t.Fatalf("%s: no first report", s.Name())
		}
		for _, tick := range []int{104, 200, 900} {
			if reported(s.Tick(ms(tick), at(3, 2))) {
				t.Fatalf("%s: at %dms reported a load as it was", s.Name(), tick)
			}
		}
		if !reported(s.Tick(ms(100).Add(steadyReportEvery), at(3, 2))) {
			t.Fatalf("%s: no report of the steady load after %v", s.Name(), steadyReportEvery)
		}
		last := ms(100).Add(steadyReportEvery)
		if !reported(s.Tick(last.Add(4*time.Millisecond), at(4, 2))) {
			t.Fatalf("%s: a changed count not reported a period after the last report", s.Name())
		}
		last = last.Add(4 * time.Millisecond)
		s.StealReply(last.Add(time.Millisecond), "p", 1)
		if !reported(s.Tick(last.Add(4*time.Millisecond), at(4, 2))) {
			t.Fatalf("%s: a task arrived, the counts the same: not reported a period after the last report", s.Name())
		}
		last = last.Add(4 * time.Millisecond)
		moved := reported(s.Tick(last.Add(4*time.Millisecond), at(4, 3)))
		if _, rateAware := s.(*RatePolicy); moved != rateAware {
			t.Fatalf("%s: the rate moved by half: reported %v, want %v (only the rate-aware policy's peers read it)", s.Name(), moved, rateAware)
		}
	}
}
