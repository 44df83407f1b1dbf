package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/clitest"
	"github.com/tsys-go/tsys/internal/proctest"
)

func TestSortIsVerified(t *testing.T) {
	for _, args := range [][]string{
		{"run", "sort", "-n", "200000", "--workers", "2", "--json"},
		{"run", "sort", "-n", "1", "--workers", "2", "--json"},
		{"run", "sort", "-n", "0", "--json"},
		{"run", "sort", "-n", "50000", "--leaf", "1", "--inline", "off", "--json"},
		{"run", "sort", "-n", "50000", "--serial", "--json"},
	} {
		code, rep, stderr := clitest.Exec(t, config, args...)
		if code != 0 || rep["verified"] != true {
			t.Errorf("%v: exit %d, verified %v\n%s", args, code, rep["verified"], stderr)
		}
	}
}

// TestSortUnderCheckCopies: the sort takes and returns values, so running
// every task on copies, as on other nodes, changes nothing.
func TestSortUnderCheckCopies(t *testing.T) {
	t.Setenv("TSYS_CHECK_COPIES", "1")
	if code, rep, stderr := clitest.Exec(t, config, "run", "sort", "-n", "100000", "--json"); code != 0 || rep["verified"] != true {
		t.Fatalf("exit %d, verified %v\n%s", code, rep["verified"], stderr)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "sort", "-n", "-1"},
		{"run", "sort", "--leaf", "0"},
		{"run", "sorting"},
	} {
		if code, _, stderr := clitest.Exec(t, config, args...); code != 2 || !strings.HasPrefix(stderr, "mergesort: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message naming the program", args, code, stderr)
		}
	}
}

// TestTwoNodesOfItsOwnBinary: the program's own binary is a cluster:
// run --nodes 2 starts a second process of it as a node, which borrows
// pieces of the sort, and the answer is still right. A stock tsys node,
// which has not registered the sort's task, refuses the job at once,
// saying so; the job runs on without it.
func TestTwoNodesOfItsOwnBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	dir := t.TempDir()
	bin, err := proctest.Build(".", dir, os.Getenv("TSYS_TEST_RACE") != "")
	if err != nil {
		t.Fatal(err)
	}
	rep, stderr := proctest.RunJob(t, bin, "sort", "-n", "1000000", "--leaf", "1024", "--nodes", "2", "--workers", "1")
	nodes := proctest.PerNode(rep)
	if rep["verified"] != true || len(nodes) != 2 {
		t.Fatalf("verified %v on %d nodes:\n%s", rep["verified"], len(nodes), stderr)
	}
	if b := proctest.Stat(nodes[1], "tasks_received"); b == 0 {
		t.Errorf("the second node borrowed no piece of the sort:\n%v", nodes[1])
	}

	tsysBin, err := proctest.Build("github.com/tsys-go/tsys/cmd/tsys", dir, false)
	if err != nil {
		t.Fatal(err)
	}
	stock, err := proctest.StartNode(t, exec.Command(tsysBin, "node", "--fast", "--workers", "1"))
	if err != nil {
		t.Fatal(err)
	}
	rep, stderr = proctest.RunJob(t, bin, "sort", "-n", "200000", "--join", stock.Gossip, "--workers", "1")
	if rep["verified"] != true {
		t.Fatalf("verified %v with a stock node in the cluster:\n%s", rep["verified"], stderr)
	}
	for _, want := range []string{"lacks this job's tasks", "has no task mergesort.sort", "start every node from the job's program's own binary"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the root did not say %q:\n%s", want, stderr)
		}
	}
	stock.WaitFor(t, "refusing a job whose tasks this binary lacks", proctest.JobTimeout)
}
