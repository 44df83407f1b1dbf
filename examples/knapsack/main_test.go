package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/proctest"
)

// found runs the command line in this process and returns its verified
// result.
func found(t *testing.T, args ...string) (best, nodes int64) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Exec(config, append(args, "--json"), &out, &errb)
	var rep struct {
		Result   map[string]int64 `json:"result"`
		Verified bool             `json:"verified"`
	}
	if code != 0 || json.Unmarshal(out.Bytes(), &rep) != nil || !rep.Verified {
		t.Fatalf("%v: exit %d\n%s%s", args, code, out.String(), errb.String())
	}
	return rep.Result["best"], rep.Result["nodes"]
}

// TestOrderedKeepsTheSerialOrder: on one worker the ordered form looks at
// exactly the nodes the serial search does, whatever the inlining policy
// makes of its forks; the natural form, whose forked child runs after the
// other whenever the fork is a task, looks at more. Every form finds the
// optimum, on one worker and two.
func TestOrderedKeepsTheSerialOrder(t *testing.T) {
	for _, n := range []string{"30", "40", "50"} {
		_, serialNodes := found(t, "run", "knapsack", "-n", n, "--serial")
		for _, inline := range []string{"load:2", "off", "always"} {
			if _, nodes := found(t, "run", "knapsack", "-n", n, "--form", "ordered", "--workers", "1", "--inline", inline); nodes != serialNodes {
				t.Errorf("-n %s --inline %s: ordered looked at %d nodes, serial at %d", n, inline, nodes, serialNodes)
			}
		}
		found(t, "run", "knapsack", "-n", n, "--form", "ordered", "--workers", "2")
		if n != "50" { // natural looks at tens of millions of nodes there
			found(t, "run", "knapsack", "-n", n, "--form", "natural", "--workers", "2")
		}
	}
	_, serialNodes := found(t, "run", "knapsack", "-n", "40", "--serial")
	if _, nodes := found(t, "run", "knapsack", "-n", "40", "--form", "natural", "--workers", "1", "--inline", "off"); nodes <= serialNodes {
		t.Errorf("natural with every fork a task looked at %d nodes, serial %d: want more", nodes, serialNodes)
	}
}

// TestJobsAfterJobsOnANode: a node that served one job of an instance
// serves the next job of the same instance without pruning it by the
// first job's bound, which the root never saw: both answers are right.
func TestJobsAfterJobsOnANode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	bin, err := proctest.Build(".", t.TempDir(), os.Getenv("TSYS_TEST_RACE") != "")
	if err != nil {
		t.Fatal(err)
	}
	node, err := proctest.StartNode(t, exec.Command(bin, "node", "--fast", "--workers", "1"))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		rep, stderr := proctest.RunJob(t, bin, "knapsack", "-n", "40", "--form", "natural", "--join", node.Gossip, "--workers", "1")
		if rep["verified"] != true {
			t.Fatalf("verified %v:\n%s", rep["verified"], stderr)
		}
	}
}
