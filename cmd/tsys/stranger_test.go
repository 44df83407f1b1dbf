package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/stranger"
)

// peakRSS is a process's peak resident memory (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// TestStrangerCannotKeepANodeOut: a stranger holding 300 idle connections
// to a node process's task port from one address, reopening each as it
// closes, and sending garbage on more, does not keep the node out of a
// 2-node job: it runs tasks, its peak memory stays under 100 MiB, and it
// logs the refusals at a few lines a second.
func TestStrangerCannotKeepANodeOut(t *testing.T) {
	const (
		maxRSS = 100 << 20
		// The bucket lets 10 lines through at once and one a second
		// after; the job adds a few lines of its own.
		burst, jobLines = 10, 10
	)
	n, err := startNode(t, "--bind", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	linesBefore := strings.Count(n.Stderr.String(), "\n")
	began := time.Now()
	s := stranger.Start(t, n.Tasks, 300)
	n.WaitFor(t, "refused connection", 20*time.Second)
	// Past the handshake timeout: the idle connections have been dropped
	// and taken again.
	time.Sleep(time.Until(began.Add(1500 * time.Millisecond)))
	obj := tsysRun(t, "ep", "--class", "W", "--workers", "1", "--join", n.Gossip)
	s.Stop()
	elapsed := time.Since(began)
	log := n.Stderr.String()
	if obj["verified"] != true || obj["nodes"] != float64(2) {
		t.Fatalf("the job under siege: verified=%v nodes=%v\nnode log:\n%s", obj["verified"], obj["nodes"], log)
	}
	ran := false
	for _, pn := range perNode(t, obj) {
		if pn["node"] == n.Name && stat(pn, "tasks_run") > 0 {
			ran = true
		}
	}
	if !ran {
		t.Errorf("the besieged node %s ran no task of the job: %v", n.Name, obj["per_node"])
	}
	if peak := peakRSS(t, n.Cmd.Process.Pid); peak > maxRSS {
		t.Errorf("the besieged node's peak RSS is %d MiB, want at most %d", peak>>20, maxRSS>>20)
	} else {
		t.Logf("the node's peak RSS: %d MiB", peak>>20)
	}
	lines := strings.Count(log, "\n") - linesBefore
	t.Logf("the node logged %d lines in the %v of the siege", lines, elapsed.Round(time.Millisecond))
	if limit := burst + int(elapsed/time.Second) + 1 + jobLines; lines > limit {
		t.Errorf("the node logged %d lines in the %v of the siege, want at most %d:\n%s", lines, elapsed.Round(time.Millisecond), limit, log)
	}
	if !regexp.MustCompile(`refused connection[^\n]* not_logged=[1-9]`).MatchString(log) || strings.Count(log, "refused connection") < burst {
		t.Errorf("the node did not log the refusals as a bounded stream:\n%s", log)
	}
}
