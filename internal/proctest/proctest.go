// Package proctest runs a tsys program's binary as real processes for
// tests: it builds the binary, starts node processes and waits for their
// banners, and runs jobs whose --json report it decodes. The tests of the
// tsys command and of the examples share it, so that a cluster test of a
// user's program is the same few lines as one of tsys's own apps. Its
// LockedBuffer, which holds a process's output, is also where any test
// collects what concurrent code writes (a logger's lines, a proxy's
// frames).
package proctest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Build builds the main package pkg (a path go build takes) into dir and
// returns the binary's path; with race, under the race detector.
func Build(pkg, dir string, race bool) (string, error) {
	name := filepath.Base(pkg)
	if name == "." {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		name = filepath.Base(wd)
	}
	bin := filepath.Join(dir, name)
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, pkg)...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// LockedBuffer is what code running concurrently with a test writes (a
// process's output, a logger's lines, a proxy's frames), which the test
// may read while it is written. Its zero value is empty and ready.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what was written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Bytes is a copy of what was written so far: writes go on after it
// returns.
func (l *LockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

// Node is a node process (PROGRAM node ...).
type Node struct {
	Cmd    *exec.Cmd
	Name   string // the node's name in the cluster
	Gossip string // its gossip address, which --join takes
	Tasks  string // its task transport's address, which drain and jobs take
	HTTP   string // its --http address, if any
	Stderr *LockedBuffer
}

var (
	banner     = regexp.MustCompile(`^\S+ node (\S+): gossip (\S+), tasks (\S+), `)
	httpBanner = regexp.MustCompile(`, http (\S+)$`)
)

// StartNode starts cmd, a node process, and waits for the banner it
// prints on its standard output, or returns its error output if it exits
// first. The test stops the node when it ends, and fails if the node
// reported a data race (a binary built with the race detector).
func StartNode(t testing.TB, cmd *exec.Cmd) (*Node, error) {
	t.Helper()
	n := &Node{Cmd: cmd, Stderr: &LockedBuffer{}}
	cmd.Stderr = n.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
		io.Copy(io.Discard, out)
	}()
	select {
	case l, ok := <-line:
		if m := banner.FindStringSubmatch(l); ok && m != nil {
			n.Name, n.Gossip, n.Tasks = m[1], m[2], m[3]
			if h := httpBanner.FindStringSubmatch(l); h != nil {
				n.HTTP = h[1]
			}
			t.Cleanup(func() {
				n.Stop()
				if strings.Contains(n.Stderr.String(), "WARNING: DATA RACE") {
					t.Errorf("a node process raced:\n%s", n.Stderr)
				}
			})
			return n, nil
		}
		cmd.Wait()
		return nil, fmt.Errorf("exit %v: %s", cmd.ProcessState, n.Stderr)
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("no banner within 20 s: %s", n.Stderr)
	}
}

// WaitFor waits until the node has logged s, failing the test after d.
func (n *Node) WaitFor(t testing.TB, s string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !strings.Contains(n.Stderr.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the node did not log %q within %v:\n%s", s, d, n.Stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop interrupts the node, as Ctrl-C does, and kills it if it has not
// left within 5 s.
func (n *Node) Stop() {
	n.Cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { n.Cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		n.Cmd.Process.Kill()
		<-done
	}
}

// JobTimeout is how long a job may take before the test calls it hung (a
// lost task), rather than waiting for the test binary's deadline: 2
// minutes, and 5 when the processes are built with the race detector
// (TSYS_TEST_RACE), which makes them several times slower. On the
// project's 2-core machine at load 16 to 20, the race-built EP A job of
// TestJobsShareNodesFirstComeHighestPriority finished in 97 to 109 s in
// the runs that passed and overran 2 minutes in two that failed: a bound
// that close to the real time fails a loaded machine, not a lost task.
var JobTimeout = jobTimeout(os.Getenv("TSYS_TEST_RACE") != "")

func jobTimeout(race bool) time.Duration {
	if race {
		return 5 * time.Minute
	}
	return 2 * time.Minute
}

// StartJob starts `BIN run ARGS --json` and returns a function that
// waits for it and returns its exit error, its decoded report (nil if
// it printed none) and what it wrote on stderr.
func StartJob(t testing.TB, bin string, args ...string) func() (report map[string]any, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), JobTimeout)
	cmd := exec.CommandContext(ctx, bin, append(append([]string{"run"}, args...), "--json")...)
	var stdout, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &errb
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	return func() (map[string]any, string, error) {
		t.Helper()
		defer cancel()
		err := cmd.Wait()
		if ctx.Err() != nil {
			t.Fatalf("%s run %v did not finish in %v: a lost task?\n%s", filepath.Base(bin), args, JobTimeout, errb.String())
		}
		var obj map[string]any
		if stdout.Len() > 0 {
			if jerr := json.Unmarshal(stdout.Bytes(), &obj); jerr != nil {
				t.Fatalf("%s run %v: output is not one JSON object: %v\n%s", filepath.Base(bin), args, jerr, stdout.String())
			}
		}
		return obj, errb.String(), err
	}
}

// RunJob runs `BIN run ARGS --json`, fails the test unless it succeeds,
// and returns its report and stderr.
func RunJob(t testing.TB, bin string, args ...string) (map[string]any, string) {
	t.Helper()
	obj, stderr, err := StartJob(t, bin, args...)()
	if err != nil || obj == nil {
		t.Fatalf("%s run %v: %v\n%s", filepath.Base(bin), args, err, stderr)
	}
	return obj, stderr
}

// PerNode is a report's per_node entries.
func PerNode(report map[string]any) []map[string]any {
	var out []map[string]any
	nodes, _ := report["per_node"].([]any)
	for _, n := range nodes {
		out = append(out, n.(map[string]any))
	}
	return out
}

// Stat is a counter of a report's (or a per_node entry's) stats.
func Stat(m map[string]any, name string) float64 {
	v, _ := m["stats"].(map[string]any)[name].(float64)
	return v
}
