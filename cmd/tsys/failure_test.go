package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var soak = flag.Int("tsys.soak", 0, "TestKillANodeAnyTime: runs of each app, each killing a node (0: a CI-sized count)")

// failureApp is a job of the failure tests: its arguments, and how to
// check a run's answer against the single-node one.
type failureApp struct {
	name string
	args []string
	same func(t *testing.T, got, want map[string]any, gotPNG, wantPNG []byte) bool
}

func failureApps() []failureApp {
	sameResult := func(key string) func(*testing.T, map[string]any, map[string]any, []byte, []byte) bool {
		return func(_ *testing.T, got, want map[string]any, _, _ []byte) bool {
			g, w := got["result"], want["result"]
			if key != "" {
				g, w = g.(map[string]any)[key], w.(map[string]any)[key]
			}
			return got["verified"] == true && fmt.Sprint(g) == fmt.Sprint(w)
		}
	}
	return []failureApp{
		{"ep", []string{"ep", "--class", "A"}, sameResult("q")}, // EP's counts are exact
		{"uts", []string{"uts", "--tree", "T1"}, sameResult("")},
		{"rt", []string{"rt", "-w", "480", "-h", "360", "--leaf", "256"}, func(_ *testing.T, _, _ map[string]any, got, want []byte) bool {
			return len(got) > 0 && bytes.Equal(got, want)
		}},
	}
}

// rerunLine is a node's line (slog's text format) saying it runs lent
// tasks again: a borrower's loans backed up when it fell silent, or run
// again when gossip declared it dead.
var rerunLine = regexp.MustCompile(`time=(\S+) level=\S+ msg="(running lent tasks here again; a result the borrower still sends is dropped|a borrower has said nothing for a while; running its loans here too, the first result wins)"`)

// firstRerun is the earliest time any of logs says it ran lent tasks
// again.
func firstRerun(logs ...string) (time.Time, bool) {
	var first time.Time
	for _, l := range logs {
		for _, m := range rerunLine.FindAllStringSubmatch(l, -1) {
			if at, err := time.Parse(time.RFC3339Nano, m[1]); err == nil && (first.IsZero() || at.Before(first)) {
				first = at
			}
		}
	}
	return first, !first.IsZero()
}

// TestKillANodeAnyTime: on 4 nodes (the job's own and three tsys node
// processes), one node other than the job's is killed (-9) at a random
// moment of an EP, UTS or RT run; every run gives the single-node answer
// (RT: the same PNG bytes). The test logs each run's re-run tasks and the
// time from the kill to the first re-run. -tsys.soak N runs each app N
// times.
func TestKillANodeAnyTime(t *testing.T) {
	runs := 2 // CI's count; -tsys.soak for more
	if *soak > 0 {
		runs = *soak
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("random moments and victims from seed %d", seed)
	dir := t.TempDir()
	for _, app := range failureApps() {
		refPNG := filepath.Join(dir, app.name+"-ref.png")
		refArgs := append(slices.Clone(app.args), "--workers", "1")
		if app.name == "rt" {
			refArgs = append(refArgs, "-o", refPNG)
		}
		began := time.Now()
		ref := tsysRun(t, refArgs...)
		serial := time.Since(began)
		wantPNG, _ := os.ReadFile(refPNG)
		for run := range runs {
			var nodes []*node
			var gossip string
			for i := range 3 {
				args := []string{"--bind", "127.0.0.1:0"}
				if i > 0 {
					args = append(args, "--join", gossip)
				}
				n, err := startNode(t, args...)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					gossip = n.Gossip
				}
				nodes = append(nodes, n)
			}
			png := filepath.Join(dir, fmt.Sprintf("%s-%d.png", app.name, run))
			args := append(slices.Clone(app.args), "--workers", "1", "--join", gossip, "--json")
			if app.name == "rt" {
				args = append(args, "-o", png)
			}
			cmd := exec.Command(tsysBin, append([]string{"run"}, args...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Somewhere in the run, which takes about serial/4 on four
			// nodes once the job has started.
			for _, n := range nodes {
				n.WaitFor(t, "serving a job", 20*time.Second)
			}
			wait := time.Duration(rng.Int64N(int64(serial/4) + 1))
			victim := rng.IntN(len(nodes))
			time.Sleep(wait)
			killed := time.Now()
			nodes[victim].Cmd.Process.Kill()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%s run %d: the run failed after node %d was killed: %v\n%s", app.name, run, victim, err, stderr.String())
			}
			var obj map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &obj); err != nil {
				t.Fatalf("%s run %d: %v: %s", app.name, run, err, stdout.String())
			}
			gotPNG, _ := os.ReadFile(png)
			if !app.same(t, obj, ref, gotPNG, wantPNG) {
				t.Errorf("%s run %d: killing node %d after %v changed the answer: %v", app.name, run, victim, wait, obj["result"])
			}
			logs := []string{stderr.String()}
			for _, n := range nodes {
				logs = append(logs, n.Stderr.String())
			}
			recovery := "no lent task was lost"
			if at, ok := firstRerun(logs...); ok {
				recovery = "first re-run " + at.Sub(killed).Round(time.Millisecond).String() + " after the kill"
			}
			t.Logf("%s run %d: node %d killed %v after the job reached it; %v tasks re-run, %v backed up, %s; wall %.3f s",
				app.name, run, victim, wait.Round(time.Millisecond), stat(obj, "tasks_rerun"), stat(obj, "backups"), recovery, obj["wall_seconds"])
			for _, n := range nodes {
				n.Stop()
			}
		}
	}
}

// cpuTime is a process's user and system time so far (Linux).
func cpuTime(t *testing.T, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command's closing parenthesis; utime and stime are
	// the 12th and 13th of them, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// TestRootDiesMidJob: when the job's root (the tsys run process) dies, the
// other nodes, finding its port refused, drop the job at once rather than
// serving it on in case it was only slow; they stop working on it (their
// CPU goes quiet), and serve the next job as before.
func TestRootDiesMidJob(t *testing.T) {
	seed, err := startNode(t, "--bind", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	other, err := startNode(t, "--bind", "127.0.0.1:0", "--join", seed.Gossip, "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tsysBin, "run", "ep", "--class", "B", "--workers", "1", "--join", seed.Gossip)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	other.WaitFor(t, "borrowed tasks", 20*time.Second)
	cmd.Process.Kill()
	cmd.Wait()
	// Gossip must first declare the root dead, which a loaded machine
	// delays by seconds; the refused dial is what this waits for, and
	// RootGrace (30 s) logs another line.
	for _, n := range []*node{seed, other} {
		n.WaitFor(t, "its process is gone; dropping the job", 60*time.Second)
	}
	for _, n := range []*node{seed, other} {
		before := cpuTime(t, n.Cmd.Process.Pid)
		time.Sleep(time.Second)
		if used := cpuTime(t, n.Cmd.Process.Pid) - before; used > 300*time.Millisecond {
			t.Errorf("a node used %v of CPU in the second after it dropped the dead root's job", used)
		}
	}
	obj := tsysRun(t, "ep", "--class", "W", "--workers", "1", "--join", seed.Gossip)
	if obj["verified"] != true || len(perNode(t, obj)) != 3 {
		t.Fatalf("the next job: verified=%v, %d nodes", obj["verified"], len(perNode(t, obj)))
	}
}
