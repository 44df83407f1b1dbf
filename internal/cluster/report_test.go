package cluster

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/cputime"
	"github.com/tsys-go/tsys/tsys"
)

// reportingPolicy reports its node's load at every tick and records the
// reports it hears.
type reportingPolicy struct {
	mu    sync.Mutex
	heard []clusterpolicy.Load
}

func (p *reportingPolicy) Name() string { return "test-reporting" }
func (p *reportingPolicy) Advice() clusterpolicy.Advice {
	return clusterpolicy.Advice{HungryAfter: clusterpolicy.Never}
}
func (p *reportingPolicy) Hungry(time.Time) []clusterpolicy.Action      { return nil }
func (p *reportingPolicy) JobStarted(time.Time) []clusterpolicy.Action  { return nil }
func (p *reportingPolicy) Pushed(time.Time, int) []clusterpolicy.Action { return nil }
func (p *reportingPolicy) StealReply(time.Time, clusterpolicy.NodeID, int) []clusterpolicy.Action {
	return nil
}
func (p *reportingPolicy) Membership(time.Time, clusterpolicy.MemberEvent) []clusterpolicy.Action {
	return nil
}
func (p *reportingPolicy) StealRequest(_ time.Time, from clusterpolicy.NodeID, _ int, _ clusterpolicy.Load) clusterpolicy.Action {
	return clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: from}
}
func (p *reportingPolicy) Tick(time.Time, clusterpolicy.Load) []clusterpolicy.Action {
	return []clusterpolicy.Action{{Kind: clusterpolicy.Report}}
}
func (p *reportingPolicy) LoadReport(_ time.Time, _ clusterpolicy.NodeID, l clusterpolicy.Load) []clusterpolicy.Action {
	p.mu.Lock()
	p.heard = append(p.heard, l)
	p.mu.Unlock()
	return nil
}

// spin computes until the process has used d more CPU time (or a
// minute has passed): on a loaded machine it waits for its share rather
// than ending with little measured.
var spin = tsys.Register("cluster.test.spin", func(_ *tsys.Ctx, d time.Duration) int {
	n := 0
	cpu0, _ := cputime.Process()
	for start := time.Now(); time.Since(start) < time.Minute; {
		for range 10_000 {
			n++
		}
		if cpu, _ := cputime.Process(); cpu-cpu0 >= d {
			break
		}
	}
	return n
})

// TestLoadReportsCarryTheMeasuredRates: a node busy with a task reports,
// with its ready count, the busy rate and the rate of useful work its ticks
// measured, which a rate-aware balancer places work by.
func TestLoadReportsCarryTheMeasuredRates(t *testing.T) {
	start := func(p *reportingPolicy, join []string) *Node {
		return testNode(t, Config{Join: join, Policy: func(clusterpolicy.NodeID, string) clusterpolicy.Policy { return p }})
	}
	busyPol, heardPol := &reportingPolicy{}, &reportingPolicy{}
	root := start(busyPol, nil)
	other := start(heardPol, []string{root.GossipAddr()})
	waitUntil(t, "the nodes find each other", func() bool { return root.Reachable() >= 1 && other.Reachable() >= 1 })
	job, err := root.BeginJob(JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tsys.Run(context.Background(), (*tsys.Runtime)(root.Runtime()), spin, 400*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	root.EndJob(job)
	heardPol.mu.Lock()
	defer heardPol.mu.Unlock()
	best := clusterpolicy.Load{}
	for _, l := range heardPol.heard {
		if l.Busy > best.Busy {
			best = l
		}
	}
	if best.Workers != 1 || best.Busy < 0.5 || best.Rate <= 0 {
		t.Fatalf("the busiest of %d reports from a node spinning for 400 ms of CPU: %+v", len(heardPol.heard), best)
	}
}
