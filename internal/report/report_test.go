package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/sched"
)

// TestTextNamesTheLoadedWorkers: with more than one worker the summary
// has a row per worker and names the most and least loaded; with one it
// has neither.
func TestTextNamesTheLoadedWorkers(t *testing.T) {
	r := &Report{App: "uts", Verified: true, Nodes: 2, Workers: 1, Scheduler: "fishing:random", WallSeconds: 1,
		PerNode: []NodeReport{
			{Node: "a", Workers: 1, Stats: cluster.JobStats{Stats: sched.Stats{TasksRun: 90}, NetStats: cluster.NetStats{StealRequests: 3, StealAnswers: 3}},
				PerWorker: cluster.WorkerStats([]sched.Stats{{TasksRun: 90, BusyNanos: 9e8, IdleNanos: 1e8}})},
			{Node: "b", Workers: 1, Stats: cluster.JobStats{Stats: sched.Stats{TasksRun: 10}, NetStats: cluster.NetStats{StatusSent: 4}},
				PerWorker: cluster.WorkerStats([]sched.Stats{{TasksRun: 10, BusyNanos: 2e8, IdleNanos: 8e8}})},
		}}
	var buf bytes.Buffer
	r.WriteText(&buf, "done")
	out := buf.String()
	for _, want := range []string{"node a: tasks run 90", "asked for work 3 times", "node b:", "4 status messages", "a/w0", "b/w0",
		"most loaded a/w0 (busy 90%), least loaded b/w0 (busy 20%)"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out[strings.Index(out, "node b:"):], "asked for work") {
		t.Errorf("node b asked for nothing:\n%s", out)
	}
	one := &Report{App: "fib", Verified: true, Nodes: 1, Workers: 1, Scheduler: "local", PerWorker: cluster.WorkerStats([]sched.Stats{{TasksRun: 1}})}
	buf.Reset()
	one.WriteText(&buf, "1")
	if strings.Contains(buf.String(), "most loaded") || strings.Contains(buf.String(), "busy share") {
		t.Errorf("one worker got a worker table:\n%s", buf.String())
	}
}
