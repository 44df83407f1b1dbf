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
// that once, and then only every waitingReportEvery while it stays so: it
// is due then, or sooner when the demand hold ends, and ticked between it
// does nothing. Once its load changes it reports a period after the last
// report, and a peer that joins while it waits hears from it at once.
func TestIdleNodeIsDueAtItsReport(t *testing.T) {
	idle := clusterpolicy.Load{Workers: 2, Idle: 2}
	busy := clusterpolicy.Load{Workers: 2, Ready: 3}
	second := t0.Add(waitingReportEvery)
	for _, s := range sleepersWithPeer() {
		if as := s.Tick(ms(0), idle); len(as) != 1 || as[0].Kind != clusterpolicy.Report {
			t.Fatalf("%s: first tick: %v, want a report", s.Name(), as)
		}
		if due := s.NextDue(ms(0), idle); !due.Equal(second) {
			t.Fatalf("%s: due at %v, want the waiting node's next report at %v", s.Name(), due.Sub(t0), waitingReportEvery)
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
			t.Fatalf("%s: due at %v, want %v", s.Name(), due.Sub(t0), waitingReportEvery)
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
		s.Tick(ms(10), busy) // reports; the next is due at 14 ms, past every demand hold
		s.LoadReport(ms(10), "p", clusterpolicy.Load{Workers: 2, Ready: 9})
		if due := s.NextDue(ms(10), busy); !due.Equal(ms(14)) {
			t.Fatalf("%s: at work, no peer wanting: due at %v, want the report at 14ms", s.Name(), due.Sub(t0))
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
