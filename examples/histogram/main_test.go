package main

import (
	"os"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/clitest"
	"github.com/tsys-go/tsys/internal/proctest"
)

// TestSummaryIsVerified: the parallel summary is the serial one, for sizes
// from empty up, on 1 and 2 workers, with every spawn a task or none.
func TestSummaryIsVerified(t *testing.T) {
	for _, n := range []string{"0", "1", "2", "17", "100003"} {
		for _, extra := range [][]string{{"--workers", "1"}, {"--workers", "2"}, {"--workers", "2", "--inline", "off"}, {"--workers", "2", "--inline", "always"}} {
			args := append([]string{"run", "histogram", "-n", n, "--bins", "7", "--json"}, extra...)
			code, rep, stderr := clitest.Exec(t, config, args...)
			if code != 0 || rep["verified"] != true {
				t.Fatalf("%v: exit %d, verified %v\n%s", args, code, rep["verified"], stderr)
			}
			counts, _ := rep["result"].(map[string]any)["counts"].([]any)
			total := 0.0
			for _, c := range counts {
				total += c.(float64)
			}
			if len(counts) != 7 || n != "0" && total != rep["params"].(map[string]any)["n"].(float64) {
				t.Errorf("%v: counts %v", args, counts)
			}
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "histogram", "-n", "-1"},
		{"run", "histogram", "--bins", "0"},
		{"run", "histogram", "--bin", "3"},
	} {
		if code, _, stderr := clitest.Exec(t, config, args...); code != 2 || !strings.Contains(stderr, "histogram: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message naming the program", args, code, stderr)
		}
	}
}

// TestClosuresStayOnTheirNode: run on two nodes of its own binary, the
// job is right and the second node, which asks for work all along,
// borrows nothing: the loops are closures over this process's memory,
// which cannot be sent.
func TestClosuresStayOnTheirNode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	bin, err := proctest.Build(".", t.TempDir(), os.Getenv("TSYS_TEST_RACE") != "")
	if err != nil {
		t.Fatal(err)
	}
	rep, stderr := proctest.RunJob(t, bin, "histogram", "-n", "20000000", "--nodes", "2", "--workers", "1")
	nodes := proctest.PerNode(rep)
	if rep["verified"] != true || len(nodes) != 2 {
		t.Fatalf("verified %v on %d nodes:\n%s", rep["verified"], len(nodes), stderr)
	}
	if b := proctest.Stat(nodes[1], "tasks_received"); b != 0 {
		t.Errorf("the second node borrowed %v pieces of closure loops:\n%v", b, nodes[1])
	}
	// Not for want of asking: the second node was hungry throughout.
	if r := proctest.Stat(nodes[1], "steal_requests"); r == 0 {
		t.Errorf("the second node never asked for work:\n%v", nodes[1])
	}
}
