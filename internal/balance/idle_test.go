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

// TestIdleNodeIsDueAtItsReport: a node whose workers all wait is due when
// its next report is, or sooner when the demand hold ends; ticked before
// then it does nothing, and ticked then it reports.
func TestIdleNodeIsDueAtItsReport(t *testing.T) {
	idle := clusterpolicy.Load{Workers: 2, Idle: 2}
	for _, s := range []interface {
		clusterpolicy.Policy
		clusterpolicy.Sleeper
	}{
		newPolicy("p"),
		NewRate("self", RateParams{MinPeriod: 4 * time.Millisecond, MaxPeriod: 4 * time.Millisecond, MoveCost: 100 * time.Microsecond}),
	} {
		s.Membership(t0, clusterpolicy.MemberEvent{Node: "p", Joined: true})
		s.Tick(ms(0), idle) // reports; the next is due at 4 ms
		if due := s.NextDue(ms(0), idle); !due.Equal(ms(4)) {
			t.Fatalf("%s: due at %v, want the next report at 4ms", s.Name(), due.Sub(t0))
		}
		s.JobStarted(ms(1)) // holds demand for two periods, to 9 ms
		if due := s.NextDue(ms(1), idle); !due.Equal(ms(4)) {
			t.Fatalf("%s: due at %v after the job's start, want the report at 4ms", s.Name(), due.Sub(t0))
		}
		if as := s.Tick(ms(3), idle); as != nil {
			t.Fatalf("%s: ticked before due: %v", s.Name(), as)
		}
		if as := s.Tick(ms(4), idle); len(as) != 1 || as[0].Kind != clusterpolicy.Report {
			t.Fatalf("%s: ticked when due: %v, want a report", s.Name(), as)
		}
		if due := s.NextDue(ms(4), idle); !due.Equal(ms(8)) {
			t.Fatalf("%s: due at %v, want 8ms", s.Name(), due.Sub(t0))
		}
		if due := s.NextDue(ms(8), idle); !due.Equal(ms(8)) {
			t.Fatalf("%s: due at %v at 8ms, want 8ms", s.Name(), due.Sub(t0))
		}
		s.Tick(ms(8), idle)
		if due := s.NextDue(ms(8), idle); !due.Equal(ms(9)) {
			t.Fatalf("%s: due at %v, want the end of the demand hold at 9ms", s.Name(), due.Sub(t0))
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
	for _, s := range []interface {
		clusterpolicy.Policy
		clusterpolicy.Sleeper
	}{
		newPolicy("p"),
		NewRate("self", RateParams{MinPeriod: 4 * time.Millisecond, MaxPeriod: 4 * time.Millisecond, MoveCost: 100 * time.Microsecond}),
	} {
		s.Membership(t0, clusterpolicy.MemberEvent{Node: "p", Joined: true})
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
