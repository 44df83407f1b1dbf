package cluster

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
	"github.com/tsys-go/tsys/tsys"
)

var benchPolling, benchPollingFan *tsys.Task[int, int]

func init() {
	// A leaf of 200 ms that looks at its job's Done each millisecond; it
	// sleeps, so that what is measured is the runtime's reaction rather
	// than this machine's share of CPU.
	benchPolling = tsys.Register("cluster.bench.polling", func(c *tsys.Ctx, _ int) int {
		for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); {
			select {
			case <-c.Context().Done():
				return 0
			case <-time.After(time.Millisecond):
			}
		}
		return 1
	})
	benchPollingFan = tsys.Register("cluster.bench.pollingfan", func(c *tsys.Ctx, n int) int {
		fs := make([]tsys.Forked[int], n)
		for i := range fs {
			fs[i] = benchPolling.Fork(c, i)
		}
		s := 0
		for i := n - 1; i >= 0; i-- {
			s += fs[i].Join(c)
		}
		return s
	})
}

// BenchmarkCancelAcrossNodes measures a cancelled job of two nodes of one
// worker each, with real memberlist and TCP on loopback: a root running
// 1,000 polling leaves of 200 ms, cancelled once the other node is
// running leaves it borrowed. Metrics: how long the root's Run took to
// return after the cancel (run-ms), and EndJob after that, until the
// other node had stopped and reported (end-ms); medians.
func BenchmarkCancelAcrossNodes(b *testing.B) {
	policy := func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy {
		return fishing.New(self, zone, fishing.Params{})
	}
	root := testNode(b, Config{Policy: policy, Client: true})
	server := testNode(b, Config{Policy: policy, Join: []string{root.GossipAddr()}})
	waitUntil(b, "the root reaches the other node", func() bool { return root.Reachable() >= 1 })
	var runMs, endMs []float64
	for b.Loop() {
		job, err := root.BeginJob(JobOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancelled := make(chan time.Time, 1)
		go func() {
			// Not waitUntil: only the benchmark's goroutine may fail it.
			for deadline := time.Now().Add(10 * time.Second); !borrowing(server, job.ID) && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			cancelled <- time.Now()
			cancel()
		}()
		_, _, err = tsys.Run(ctx, (*tsys.Runtime)(root.Runtime()), benchPollingFan, 1000)
		returned := time.Now()
		root.EndJob(job)
		ended := time.Now()
		cancel()
		if err == nil {
			b.Fatal("the job was not cancelled")
		}
		at := <-cancelled
		if st := server.jobs.of(job.ID); st != nil {
			b.Fatal("the other node still serves the job after its end")
		}
		runMs = append(runMs, float64(returned.Sub(at))/1e6)
		endMs = append(endMs, float64(ended.Sub(returned))/1e6)
	}
	b.ReportMetric(medianOf(runMs), "run-ms")
	b.ReportMetric(medianOf(endMs), "end-ms")
}

// borrowing reports whether n serves job and holds tasks it borrowed.
func borrowing(n *Node, job uint64) bool {
	e := n.jobs.of(job)
	if e == nil {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.borrowed.len() > 0
}

func medianOf(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
