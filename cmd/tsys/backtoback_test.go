package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// backToBackJobs is how many jobs TestBackToBackJobsLeaveCleanly runs: a
// node hears a client leave a few times a second, as under a loop of
// short jobs.
const backToBackJobs = 50

// endedRunNoise are the lines a process logs when it dials, or invites, a
// job's client that has exited: a refused dial.
var endedRunNoise = []string{"dial failed", "cannot take part"}

// TestBackToBackJobsLeaveCleanly: short jobs one after another on the same
// three nodes, balancing: besides the word each node sends the job's nodes
// as it takes part, every node and the root report their load to them.
// Each run's client leaves the cluster as it exits, and no
// process dials or invites a client that has gone: neither the nodes nor
// the runs log any of endedRunNoise. (That each member hears the leave as
// one, not as a death, is membership's TestLeaveReachesEveryMember: here
// it would hang on the CPU the nodes get, as a busy node is suspected.)
// The processes run on loopback: in network namespaces a process gone
// from a host that is up refuses a dial just as it does here, and a run
// there would take the LAN gossip timing, a second or so to leave.
func TestBackToBackJobsLeaveCleanly(t *testing.T) {
	seed, err := startNode(t, "--bind", "127.0.0.1:0", "--sched", "balance", "--http", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nodes := []*node{seed}
	for range 2 {
		n, err := startNode(t, "--bind", "127.0.0.1:0", "--sched", "balance", "--join", seed.Gossip, "--http", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	waitNodeSnapshots(t, nodes, "each node to see the 3 nodes", func(s nodeSnapshot) bool { return s.Members == 3 })
	var runs strings.Builder
	for i := range backToBackJobs {
		obj, stderr := startJobLogged(t, "fib", "-n", "20", "--workers", "1", "--sched", "balance", "--join", seed.Gossip)()
		if obj["verified"] != true {
			t.Fatalf("job %d: verified=%v\n%s", i, obj["verified"], stderr)
		}
		runs.WriteString(stderr)
	}
	// Once each node lists the 3 nodes alone, it has heard the last
	// client go, and sends it nothing more.
	waitNodeSnapshots(t, nodes, "each node to hear the last client go", func(s nodeSnapshot) bool { return s.Members == 3 })
	served := int64(0)
	for i, n := range nodes {
		s := nodeSnapshotOf(t, n)
		served += s.JobsTotal
		if s.JobsTotal == 0 {
			t.Errorf("node %d served none of the %d jobs", i, backToBackJobs)
		}
		for _, noise := range endedRunNoise {
			if c := strings.Count(n.Stderr.String(), noise); c > 0 {
				t.Errorf("node %d logged %q %d times over %d back-to-back jobs", i, noise, c, backToBackJobs)
			}
		}
	}
	if served < backToBackJobs {
		t.Errorf("the nodes served the %d jobs %d times in all: the jobs did not run on them back to back", backToBackJobs, served)
	}
	for _, noise := range endedRunNoise {
		if c := strings.Count(runs.String(), noise); c > 0 {
			t.Errorf("the runs logged %q %d times over %d back-to-back jobs", noise, c, backToBackJobs)
		}
	}
	if t.Failed() {
		for i, n := range nodes {
			t.Logf("node %d:\n%s", i, n.Stderr)
		}
		t.Logf("the runs:\n%s", runs.String())
	}
}

// nodeSnapshot is what TestBackToBackJobsLeaveCleanly reads of a node's
// /api/node.
type nodeSnapshot struct {
	Members   int   `json:"members"`
	JobsTotal int64 `json:"jobs_total"`
}

// nodeSnapshotOf reads node n's snapshot from its --http server.
func nodeSnapshotOf(t *testing.T, n *node) nodeSnapshot {
	t.Helper()
	resp, err := http.Get(n.HTTP + "/api/node")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s nodeSnapshot
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatalf("%s/api/node: %v", n.HTTP, err)
	}
	return s
}

// waitNodeSnapshots waits until every node's snapshot satisfies cond,
// failing the test after a minute.
func waitNodeSnapshots(t *testing.T, nodes []*node, what string, cond func(nodeSnapshot) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, n := range nodes {
		for !cond(nodeSnapshotOf(t, n)) {
			if time.Now().After(deadline) {
				t.Fatalf("waited a minute for %s: %+v", what, nodeSnapshotOf(t, n))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
