package main

import (
	"os"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/advise"
	"github.com/tsys-go/tsys/internal/clitest"
	"github.com/tsys-go/tsys/internal/proctest"
)

// TestFixedSplitIsRepeatable: with --leaf the split, not the schedule,
// sets the rounding, so every run gives the same bits. (The adaptive
// split cuts pieces by timing, and its sums differ in the last bits.)
func TestFixedSplitIsRepeatable(t *testing.T) {
	var first any
	for _, args := range [][]string{
		{"run", "sum", "-n", "3000000", "--leaf", "16384", "--workers", "2", "--json"},
		{"run", "sum", "-n", "3000000", "--leaf", "16384", "--workers", "1", "--json"},
		{"run", "sum", "-n", "3000000", "--leaf", "16384", "--workers", "2", "--inline", "off", "--json"},
	} {
		code, rep, stderr := clitest.Exec(t, config, args...)
		if code != 0 || rep["verified"] != true {
			t.Fatalf("%v: exit %d, verified %v\n%s", args, code, rep["verified"], stderr)
		}
		if first == nil {
			first = rep["result"]
		} else if rep["result"] != first {
			t.Errorf("%v: sum %v, another run %v", args, rep["result"], first)
		}
	}
}

func TestAdaptiveSplitsAreVerified(t *testing.T) {
	for _, args := range [][]string{
		{"run", "sum", "-n", "3000000", "--workers", "2", "--json"},
		{"run", "sum", "-n", "3000000", "--workers", "1", "--json"},
		{"run", "sum", "-n", "3000000", "--workers", "2", "--inline", "off", "--json"},
	} {
		code, rep, stderr := clitest.Exec(t, config, args...)
		if code != 0 || rep["verified"] != true {
			t.Errorf("%v: exit %d, verified %v\n%s", args, code, rep["verified"], stderr)
		}
	}
}

func TestSmallRanges(t *testing.T) {
	for _, n := range []string{"0", "1", "17"} {
		for _, extra := range [][]string{nil, {"--leaf", "4"}} {
			args := append([]string{"run", "sum", "-n", n, "--workers", "2", "--json"}, extra...)
			if code, rep, stderr := clitest.Exec(t, config, args...); code != 0 || rep["verified"] != true {
				t.Errorf("%v: exit %d, verified %v\n%s", args, code, rep["verified"], stderr)
			}
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "sum", "--leaf", "-1"}, "--leaf -1"},
		{[]string{"run", "sum", "-n", "-1"}, "-n -1"},
	} {
		if code, _, stderr := clitest.Exec(t, config, c.args...); code != 2 || !strings.HasPrefix(stderr, "reduce: ") || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message naming the program and saying %q", c.args, code, stderr, c.want)
		}
	}
}

// TestAdvise: the program with the advise verb added advises on itself,
// calibrating on this machine: each fixed split it names is recorded and
// weighed, and the advice is one of them, with a command line of its own
// binary that follows it. Without the verb, advise is an unknown command.
func TestAdvise(t *testing.T) {
	args := []string{"advise", "sum", "-n", "2000000", "--nodes", "1,2,4", "--workers", "1", "--json"}
	if code, _, stderr := clitest.Exec(t, config, args...); code != 2 || !strings.Contains(stderr, `unknown command "advise"`) {
		t.Fatalf("advise without the verb: exit %d, %q; want 2 and an unknown command", code, stderr)
	}
	withAdvise := config
	withAdvise.Commands = append(withAdvise.Commands, advise.Command(config))
	code, rep, stderr := clitest.Exec(t, withAdvise, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr)
	}
	if opts := rep["options"].([]any); len(opts) != 4 || rep["grain_flag"] != "--leaf" {
		t.Fatalf("options %v, grain flag %v", opts, rep["grain_flag"])
	}
	machine := rep["machine"].(map[string]any)
	if machine["startup_ns"].(float64) <= 0 || machine["spawn_ns"].(float64) <= 0 {
		t.Errorf("calibration measured %v", machine)
	}
	rec := rep["advice"].(map[string]any)["recommended"].(map[string]any)
	leaf := rec["grain"].(string)
	if !strings.HasPrefix(rep["command"].(string), "reduce run sum --n=2000000 --leaf="+leaf+" ") {
		t.Errorf("command %q", rep["command"])
	}
	// The advice runs.
	run := []string{"run", "sum", "-n", "2000000", "--leaf", leaf, "--workers", "1", "--json"}
	if code, rep, stderr := clitest.Exec(t, config, run...); code != 0 || rep["verified"] != true {
		t.Fatalf("%v: exit %d\n%s", run, code, stderr)
	}
}

// TestTwoNodesOfItsOwnBinary: the program's own binary is a cluster: run
// --nodes 2 starts a second process of it as a node, which borrows pieces
// of the loop that the adaptive split cuts off for it, and the sum is
// still right.
func TestTwoNodesOfItsOwnBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	bin, err := proctest.Build(".", t.TempDir(), os.Getenv("TSYS_TEST_RACE") != "")
	if err != nil {
		t.Fatal(err)
	}
	// About a second on one slow core: long enough for the second node to
	// start and ask for work.
	rep, stderr := proctest.RunJob(t, bin, "sum", "-n", "100000000", "--nodes", "2", "--workers", "1")
	nodes := proctest.PerNode(rep)
	if rep["verified"] != true || len(nodes) != 2 {
		t.Fatalf("verified %v on %d nodes:\n%s", rep["verified"], len(nodes), stderr)
	}
	if b := proctest.Stat(nodes[1], "tasks_received"); b == 0 {
		t.Errorf("the second node borrowed no piece of the loop:\n%v\n%s", nodes[1], stderr)
	}
}
