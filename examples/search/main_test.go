package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/proctest"
)

// run runs the command line in this process, failing the test if it has
// not returned within limit: a search that is not stopped runs for hours.
func run(t *testing.T, limit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- cli.Exec(config, args, &out, &errb) }()
	select {
	case code = <-done:
	case <-time.After(limit):
		t.Fatalf("%v still running after %v: the failure did not stop it", args, limit)
	}
	return code, out.String(), errb.String()
}

func TestFindsTheSmallestNonce(t *testing.T) {
	for _, w := range []string{"1", "2"} {
		for _, z := range []string{"0", "10", "14"} {
			code, out, stderr := run(t, time.Minute, "run", "search", "--zeros", z, "--workers", w, "--window", "4096", "--leaf", "256", "--json")
			if code != 0 || !strings.Contains(out, `"verified":true`) {
				t.Errorf("zeros %s on %s workers: exit %d\n%s%s", z, w, code, out, stderr)
			}
		}
	}
	if code, out, _ := run(t, time.Minute, "run", "search", "--zeros", "30", "--limit", "5000", "--json"); code != 0 || !strings.Contains(out, `"result":-1`) {
		t.Errorf("no nonce below the limit: exit %d, %s", code, out)
	}
}

// TestAFailureStopsTheSearch: the piece that fails stops a search of
// hours, on one worker and two, and the job says which task failed and
// why.
func TestAFailureStopsTheSearch(t *testing.T) {
	for _, w := range []string{"1", "2"} {
		code, _, stderr := run(t, time.Minute, "run", "search", "--zeros", "60", "--fail-at", "300000", "--workers", w)
		if code != 1 || !strings.Contains(stderr, `task "search.range": checking nonce 300000: a fault`) {
			t.Errorf("%s workers: exit %d, stderr %q; want 1 and the task's error", w, code, stderr)
		}
	}
}

// TestAFaultyNodeStopsTheJob: a node whose pieces fail (a faulty
// machine) stops the job its root runs, though the root's own pieces
// would not fail; the error travels home, naming the node. The node then
// serves the next job, which succeeds.
func TestAFaultyNodeStopsTheJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	bin, err := proctest.Build(".", t.TempDir(), os.Getenv("TSYS_TEST_RACE") != "")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "node", "--fast", "--workers", "1")
	cmd.Env = append(os.Environ(), "SEARCH_FAULT_FROM=1000000")
	faulty, err := proctest.StartNode(t, cmd)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, err := proctest.StartJob(t, bin, "search", "--zeros", "60", "--join", faulty.Gossip, "--workers", "1")()
	if err == nil || !strings.Contains(stderr, "checking nonce") || strings.Count(stderr, "node "+faulty.Name+":") != 1 {
		t.Fatalf("the job ended with %v; want a failure naming the faulty node %s once:\n%s", err, faulty.Name, stderr)
	}
	rep, stderr := proctest.RunJob(t, bin, "search", "--zeros", "14", "--join", faulty.Gossip, "--workers", "1")
	if rep["verified"] != true || len(proctest.PerNode(rep)) != 2 {
		t.Fatalf("the next job: verified %v on %d nodes, want true on 2:\n%s", rep["verified"], len(proctest.PerNode(rep)), stderr)
	}
}

// TestACancelledJobLeavesTheNodeServing: a job interrupted at its root
// (Ctrl-C) while a node runs pieces it lent ends, and the node serves the
// next job, whose answer is right.
func TestACancelledJobLeavesTheNodeServing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	bin, err := proctest.Build(".", t.TempDir(), os.Getenv("TSYS_TEST_RACE") != "")
	if err != nil {
		t.Fatal(err)
	}
	node, err := proctest.StartNode(t, exec.Command(bin, "node", "--fast", "--workers", "1", "--log-level", "debug"))
	if err != nil {
		t.Fatal(err)
	}
	root := exec.Command(bin, "run", "search", "--zeros", "60", "--join", node.Gossip, "--workers", "1")
	var stderr proctest.LockedBuffer
	root.Stderr = &stderr
	if err := root.Start(); err != nil {
		t.Fatal(err)
	}
	node.WaitFor(t, "borrowed tasks", proctest.JobTimeout) // it runs pieces of the job
	root.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- root.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(stderr.String(), "cancelled") {
			t.Errorf("the interrupted job exited with %v; want a failure saying it was cancelled:\n%s", err, stderr.String())
		}
	case <-time.After(proctest.JobTimeout):
		root.Process.Kill()
		t.Fatalf("the interrupted job did not end:\n%s", stderr.String())
	}
	rep, errs := proctest.RunJob(t, bin, "search", "--zeros", "14", "--join", node.Gossip, "--workers", "1")
	if rep["verified"] != true || len(proctest.PerNode(rep)) != 2 {
		t.Fatalf("the next job: verified %v on %d nodes, want true on 2:\n%s", rep["verified"], len(proctest.PerNode(rep)), errs)
	}
}
