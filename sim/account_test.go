package sim

import (
	"math"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/returns"
)

// TestWhereTheTimeGoes: the shares of the workers' time add up (working,
// handling messages and idle to 1, stealing within idle); working is the
// work itself, so on nodes of speed 1 it is E_P; messages cost their
// Overhead and nothing when free; a longer round trip shows as more
// stealing; and every message is a request, its one answer, a result
// message or a status report, a result message taking home one result
// (Model.ResultHold negative) or several.
func TestWhereTheTimeGoes(t *testing.T) {
	for _, latency := range []time.Duration{10 * time.Microsecond, time.Millisecond} {
		r := mustRun(t, "fishing", "fib:n=22,leaf=2us", 8, 2, func(m *Model) { m.Latency = latency })
		if sum := r.WorkShare + r.MessageShare + r.IdleShare; math.Abs(sum-1) > 1e-9 {
			t.Errorf("latency %v: working %.4f + messages %.4f + idle %.4f = %.6f, want 1", latency, r.WorkShare, r.MessageShare, r.IdleShare, sum)
		}
		if math.Abs(r.WorkShare-r.Efficiency) > 1e-9 {
			t.Errorf("latency %v: working share %.6f, want E_P %.6f on nodes of speed 1", latency, r.WorkShare, r.Efficiency)
		}
		if r.StealShare <= 0 || r.StealShare > r.IdleShare {
			t.Errorf("latency %v: stealing %.4f of idle %.4f", latency, r.StealShare, r.IdleShare)
		}
		var requests int64
		var msgCPU time.Duration
		for _, n := range r.PerNode {
			requests += n.Requests
			msgCPU += n.MessageCPU
		}
		// A request held at the end of the job is never answered: a few
		// at most, each node keeping no more than 4 in flight here.
		if answers := r.Messages - requests - r.Results - r.StatusMessages; answers > requests || answers < requests-int64(4*r.Nodes) {
			t.Errorf("latency %v: %d messages: %d requests, %d results, %d status and %d answers", latency, r.Messages, requests, r.Results, r.StatusMessages, answers)
		}
		if r.Results > r.TasksMoved || r.Results*returns.DefaultMaxResults < r.TasksMoved {
			t.Errorf("latency %v: %d result messages for %d tasks moved", latency, r.Results, r.TasksMoved)
		}
		alone := mustRun(t, "fishing", "fib:n=22,leaf=2us", 8, 2, func(m *Model) { m.Latency, m.ResultHold = latency, -1 })
		if alone.Results != alone.TasksMoved {
			t.Errorf("latency %v, results one a message: %d result messages for %d tasks moved", latency, alone.Results, alone.TasksMoved)
		}
		if most := 2 * time.Duration(r.Messages) * Defaults().Overhead; msgCPU <= 0 || msgCPU > most {
			t.Errorf("latency %v: messages took %v of CPU, want some, at most 2 x %d x the overhead", latency, msgCPU, r.Messages)
		}
		if got := float64(msgCPU) / (float64(r.Nodes*r.Workers) * float64(r.Makespan)); math.Abs(got-r.MessageShare) > 1e-9 {
			t.Errorf("latency %v: message share %.6f, the nodes' message CPU says %.6f", latency, r.MessageShare, got)
		}
	}
	near := mustRun(t, "fishing", "fib:n=22,leaf=2us", 8, 1, func(m *Model) { m.Latency = 10 * time.Microsecond })
	far := mustRun(t, "fishing", "fib:n=22,leaf=2us", 8, 1, func(m *Model) { m.Latency = 2 * time.Millisecond })
	if far.StealShare <= near.StealShare {
		t.Errorf("stealing share %.4f at 2 ms one way, %.4f at 10 us: a longer round trip should show", far.StealShare, near.StealShare)
	}
	free := mustRun(t, "fishing", "fib:n=22,leaf=2us", 8, 1, func(m *Model) { m.Overhead = 0 })
	if free.MessageShare != 0 {
		t.Errorf("free messages took %.4f of the time", free.MessageShare)
	}
}

// TestResultsGoTogether: with results held for others to the same lender
// (the default), on a flat loop of tiny iterations lent in batches, a node
// sends fewer result messages than tasks it ran for others, and every
// result comes home (the run ends, its work the tree's); with each alone,
// one message a task moved. Whether that pays is the bench's to say
// (bench/README.md): on a run this short the order of events moves the
// makespan either way.
func TestResultsGoTogether(t *testing.T) {
	const app = "flat:iters=20000,cost=500ns"
	together := mustRun(t, "fishing", app, 8, 1, nil)
	alone := mustRun(t, "fishing", app, 8, 1, func(m *Model) { m.ResultHold = -1 })
	if together.Work != alone.Work {
		t.Fatalf("work %v together, %v alone", together.Work, alone.Work)
	}
	if together.Results >= together.TasksMoved {
		t.Errorf("%d result messages for %d tasks moved, want fewer", together.Results, together.TasksMoved)
	}
	if alone.Results != alone.TasksMoved {
		t.Errorf("each alone: %d result messages for %d tasks moved", alone.Results, alone.TasksMoved)
	}
}
