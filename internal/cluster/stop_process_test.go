package cluster_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/proctest"
)

// A failure stops the whole job on every node, the work the inlining
// policy turned into plain calls too: the job's root and a serving node,
// two processes over real TCP and memberlist, run testnode's stop, a
// recursion of leaves that never poll, in which one leaf fails, on the
// root or on the serving node. Each process writes down, as a leaf
// begins, whether it already knew that the job had ended; the tests count
// those, which needs no agreement between the processes' clocks.

// The job's shape: stopLeaves leaves of stopLeafTime, the stopFailAt-th
// leaf to begin on the failing process fails. Late enough that the
// inlining policy has granted credit, on which a worker's recursion could
// run past the failure, with most leaves still to run; the benchmark's
// leaves are longer, 50 ms.
const (
	stopLeaves        = 256
	stopLeafTime      = 20 * time.Millisecond
	stopFailAt        = 8
	stopBenchLeafTime = 50 * time.Millisecond
)

// stopEvent is a line of stop's ledger: "TAG EVENT ROLE LEAF ENDED
// UNIXNANO", EVENT being begin (a leaf began; ENDED: its process knew the
// job had ended), fail (the failing leaf failed) or returned (the root's
// Run returned).
type stopEvent struct {
	event, role string
	leaf        int64
	ended       bool
	at          int64 // on the host's wall clock, which its processes share
}

// stopCluster is a serving node process and what a job of stop on it
// needs.
type stopCluster struct {
	bin, ledger string
	workers     int
	node        *proctest.Node
}

// newStopCluster starts a serving node of workers workers, stopped when
// the test ends.
func newStopCluster(t testing.TB, workers int) *stopCluster {
	t.Helper()
	s := &stopCluster{bin: nodeBinary(t), ledger: t.TempDir(), workers: workers}
	n, err := proctest.StartNode(t, exec.Command(s.bin, "node", "--bind", "127.0.0.1:0", "--workers", strconv.Itoa(workers)))
	if err != nil {
		t.Fatal(err)
	}
	s.node = n
	return s
}

// run runs a job of stop tagged tag, of leaves of leafTime, whose root,
// of as many workers as the serving node, joins it; the failing leaf is
// the stopFailAt-th to begin on the process of role failOn. It returns the job's ledger, its stderr and its
// exit error; the wait is bounded (proctest.JobTimeout).
func (s *stopCluster) run(t testing.TB, tag, failOn string, leafTime time.Duration, extra ...string) ([]stopEvent, string, error) {
	t.Helper()
	args := append([]string{"stop",
		"--leaves", strconv.Itoa(stopLeaves), "--leaf-time", leafTime.String(),
		"--fail-on", failOn, "--fail-at", strconv.Itoa(stopFailAt), "--ledger", s.ledger, "--tag", tag,
		"--join", s.node.Gossip, "--workers", strconv.Itoa(s.workers)}, gentle...)
	_, stderr, err := proctest.StartJob(t, s.bin, append(args, extra...)...)()
	return readStopLedger(t, s.ledger, tag), stderr, err
}

// readStopLedger reads the events of job tag from every process's file in
// dir.
func readStopLedger(t testing.TB, dir, tag string) []stopEvent {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []stopEvent
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b = b[:bytes.LastIndexByte(b, '\n')+1] // a line being written is read next time
		for _, line := range strings.Split(string(b), "\n") {
			w := strings.Fields(line)
			if len(w) == 0 || w[0] != tag {
				continue
			}
			if len(w) != 6 {
				t.Fatalf("ledger %s: line %q has not 6 fields", f.Name(), line)
			}
			leaf, err1 := strconv.ParseInt(w[3], 10, 64)
			ended, err2 := strconv.ParseBool(w[4])
			at, err3 := strconv.ParseInt(w[5], 10, 64)
			if err1 != nil || err2 != nil || err3 != nil {
				t.Fatalf("ledger %s: line %q does not parse", f.Name(), line)
			}
			out = append(out, stopEvent{event: w[1], role: w[2], leaf: leaf, ended: ended, at: at})
		}
	}
	return out
}

// stopSummary is what a job's ledger says of its failure.
type stopSummary struct {
	fails      []stopEvent
	returned   int64          // when the root's Run returned; 0 if never
	begun      int            // leaves begun, on either process
	knewEnded  map[string]int // by role: leaves begun once their process knew the job had ended
	afterClock int            // leaves begun after the failure by the host's clock, on either process
}

func summarize(events []stopEvent) stopSummary {
	s := stopSummary{knewEnded: map[string]int{}}
	var failAt int64
	for _, e := range events {
		switch e.event {
		case "fail":
			s.fails = append(s.fails, e)
			failAt = e.at
		case "returned":
			s.returned = e.at
		}
	}
	for _, e := range events {
		if e.event != "begin" {
			continue
		}
		s.begun++
		if e.ended {
			s.knewEnded[e.role]++
		}
		if failAt != 0 && e.at > failAt {
			s.afterClock++
		}
	}
	return s
}

// latency is the time from the failure to the root's return, on the
// host's clock; ok is false if the ledger lacks either.
func (s stopSummary) latency() (time.Duration, bool) {
	if len(s.fails) != 1 || s.returned == 0 {
		return 0, false
	}
	return time.Duration(s.returned - s.fails[0].at), true
}

// TestProcessFailureStopsJob: on 2 processes of 1 and of 2 workers, a
// leaf that fails on the serving node, or on the root, fails the job: the
// root's run exits with an error that names the task, the leaf's error
// and, from the serving node, that node; and once a process knows the
// job has ended, at most one leaf per worker begins there (one that was
// on its way in), though the leaves never poll and most of the job was
// still to run.
func TestProcessFailureStopsJob(t *testing.T) {
	for _, workers := range []int{1, 2} {
		s := newStopCluster(t, workers)
		for _, failOn := range []string{"node", "root"} {
			name := fmt.Sprintf("workers=%d/fail-on=%s", workers, failOn)
			t.Run(name, func(t *testing.T) {
				events, stderr, err := s.run(t, "w"+strconv.Itoa(workers)+failOn, failOn, stopLeafTime)
				sum := summarize(events)
				if err == nil {
					t.Fatalf("the job succeeded, though a leaf was to fail on the %s (%d leaves begun):\n%s", failOn, sum.begun, stderr)
				}
				if len(sum.fails) != 1 || sum.fails[0].role != failOn {
					t.Fatalf("the ledger has failures %+v, want one, on the %s:\n%s", sum.fails, failOn, stderr)
				}
				for _, want := range []string{`task "cluster.testnode.stop"`, "the failing leaf failed"} {
					if !strings.Contains(stderr, want) {
						t.Errorf("the root's error does not say %q:\n%s", want, stderr)
					}
				}
				if failOn == "node" && !strings.Contains(stderr, s.node.Name) {
					t.Errorf("the root's error does not name the node %s where the leaf failed:\n%s", s.node.Name, stderr)
				}
				for _, role := range []string{"root", "node"} {
					if n := sum.knewEnded[role]; n > workers {
						t.Errorf("on the %s, %d leaves began once it knew the job had ended, want at most %d (one per worker)", role, n, workers)
					}
				}
				if sum.begun >= stopLeaves {
					t.Errorf("all %d leaves began: the failure stopped nothing", sum.begun)
				}
				lat, ok := sum.latency()
				t.Logf("%d of %d leaves began, %d after the failure by the host's clock, %v knowing the job had ended; the root returned %v after the failure (ledger complete: %v)",
					sum.begun, stopLeaves, sum.afterClock, sum.knewEnded, lat, ok)
			})
		}
	}
}

// stopJobs numbers the benchmark's jobs, whose tags must differ: the
// testing package runs a benchmark's body more than once.
var stopJobs atomic.Int64

// BenchmarkProcessFailureLatency measures, on 2 processes of 1 and of 2
// workers, the time from a leaf's failure to the return of the root's
// Run, with leaves of 50 ms that never poll, on the host's wall clock
// (the processes share it): ms-min, ms-median and ms-max over the b.N
// jobs, and the leaves begun after the failure (by that clock, both
// processes) per job. call forms the recursion as RegisterErr's doc does
// (Task.Call for the half it runs now); plain recurses with a plain Go
// call, which only the next fork that asks stops. Each job is a process;
// run with -benchtime=11x.
func BenchmarkProcessFailureLatency(b *testing.B) {
	for _, workers := range []int{1, 2} {
		s := newStopCluster(b, workers)
		for _, failOn := range []string{"node", "root"} {
			for _, form := range []string{"call", "plain"} {
				b.Run(fmt.Sprintf("workers=%d/fail-on=%s/%s", workers, failOn, form), func(b *testing.B) {
					var extra []string
					if form == "plain" {
						extra = []string{"--plain"}
					}
					var lats []time.Duration
					after := 0
					for range b.N {
						tag := fmt.Sprintf("b%d%s%s%d", workers, failOn, form, stopJobs.Add(1))
						events, stderr, err := s.run(b, tag, failOn, stopBenchLeafTime, extra...)
						sum := summarize(events)
						lat, ok := sum.latency()
						if err == nil || !ok {
							b.Fatalf("job %s: err %v, failures %+v, returned at %d:\n%s\nthe serving node:\n%s", tag, err, sum.fails, sum.returned, stderr, s.node.Stderr)
						}
						lats = append(lats, lat)
						after += sum.afterClock
					}
					slices.Sort(lats)
					b.ReportMetric(float64(lats[0])/1e6, "ms-min")
					b.ReportMetric(float64(lats[len(lats)/2])/1e6, "ms-median")
					b.ReportMetric(float64(lats[len(lats)-1])/1e6, "ms-max")
					b.ReportMetric(float64(after)/float64(b.N), "leaves-after/job")
				})
			}
		}
	}
}
