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
		if due := s.NextDue(ms(0)); !due.Equal(ms(4)) {
			t.Fatalf("%s: due at %v, want the next report at 4ms", s.Name(), due.Sub(t0))
		}
		s.JobStarted(ms(1)) // holds demand for two periods, to 9 ms
		if due := s.NextDue(ms(1)); !due.Equal(ms(4)) {
			t.Fatalf("%s: due at %v after the job's start, want the report at 4ms", s.Name(), due.Sub(t0))
		}
		if as := s.Tick(ms(3), idle); as != nil {
			t.Fatalf("%s: ticked before due: %v", s.Name(), as)
		}
		if as := s.Tick(ms(4), idle); len(as) != 1 || as[0].Kind != clusterpolicy.Report {
			t.Fatalf("%s: ticked when due: %v, want a report", s.Name(), as)
		}
		if due := s.NextDue(ms(4)); !due.Equal(ms(8)) {
			t.Fatalf("%s: due at %v, want 8ms", s.Name(), due.Sub(t0))
		}
		if due := s.NextDue(ms(8)); !due.Equal(ms(8)) {
			t.Fatalf("%s: due at %v at 8ms, want 8ms", s.Name(), due.Sub(t0))
		}
		s.Tick(ms(8), idle)
		if due := s.NextDue(ms(8)); !due.Equal(ms(9)) {
			t.Fatalf("%s: due at %v, want the end of the demand hold at 9ms", s.Name(), due.Sub(t0))
		}
	}
}
