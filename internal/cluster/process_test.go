package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/proctest"
)

// The tests of this file hold what the cluster does as real processes
// show it: node processes of internal/testnode (the command line of
// package cli, whose node and run --join start a Node, with one program,
// sum) on 127.0.0.1, over real TCP and real memberlist. A job's leaves
// are paced while the test holds it (testnode's --hold), so that it is
// still running when a node joins, drains or dies however loaded the
// machine is, and finishes at full speed once released; every leaf writes
// down which process ran it (--ledger), which is how a test sees work
// move and tasks run once, or again, besides the job's own report.
// TSYS_TEST_RACE=1 builds the node binary with the race detector, as for
// cmd/tsys's tests, and a race in any process fails its test.

// testnode is the node binary, built once by the first test that needs it.
var testnode struct {
	once     sync.Once
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testnode.dir != "" {
		os.RemoveAll(testnode.dir)
	}
	os.Exit(code)
}

// The sum every job of these tests adds up: i*i for i below terms, in
// leaves of leafTerms, so 16384 leaves. Held, a leaf takes pace: the job
// then lasts well over a minute on the three or four workers of a test,
// longer than the waits for what the test looks for while it holds it;
// released, it takes well under a second.
const (
	terms     = 1 << 18
	leafTerms = 16
	leaves    = terms / leafTerms
	pace      = 20 * time.Millisecond
)

// want is the sum of i*i for i below terms.
const want = int64(terms-1) * terms * (2*terms - 1) / 6

// Deadlines: every wait of these tests ends, and none expects the CPU
// within a short window.
const (
	condWait = 30 * time.Second // for a log line or a condition
	exitWait = 30 * time.Second // for a process to exit once it should
	jobWait  = 90 * time.Second // for a released job to end
)

// procs is one test's processes and the files they share.
type procs struct {
	t      *testing.T
	bin    string
	ledger string // where the leaves write down where they ran
	holds  string // where the jobs' hold files are
}

// newProcs builds the node binary if no test has, and skips the test
// under -short, as the examples' process tests do.
func newProcs(t *testing.T) *procs {
	t.Helper()
	c := &procs{t: t, bin: nodeBinary(t), ledger: filepath.Join(t.TempDir(), "ledger"), holds: t.TempDir()}
	if err := os.Mkdir(c.ledger, 0o755); err != nil {
		t.Fatal(err)
	}
	return c
}

// nodeBinary builds the node binary if no test has, and skips the test
// (or benchmark) under -short.
func nodeBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts node processes")
	}
	testnode.once.Do(func() {
		began := time.Now()
		if testnode.dir, testnode.err = os.MkdirTemp("", "cluster-testnode"); testnode.err == nil {
			testnode.bin, testnode.err = proctest.Build("github.com/tsys-go/tsys/internal/testnode", testnode.dir, os.Getenv("TSYS_TEST_RACE") != "")
		}
		t.Logf("built the node binary in %.1f s", time.Since(began).Seconds())
	})
	if testnode.err != nil {
		t.Fatal(testnode.err)
	}
	return testnode.bin
}

// node starts a node process of one worker on loopback and waits for its
// banner; it is stopped when the test ends.
func (c *procs) node(args ...string) *proctest.Node {
	c.t.Helper()
	n, err := proctest.StartNode(c.t, exec.Command(c.bin, append([]string{"node", "--bind", "127.0.0.1:0", "--workers", "1"}, args...)...))
	if err != nil {
		c.t.Fatal(err)
	}
	return n
}

// gentle is the failure detection of a job's root in the tests where no
// node dies: run --join on loopback takes memberlist's fast timing, which
// on a loaded machine may declare a node that is only slow dead, and its
// work would be run twice. The nodes of those tests keep the LAN timing
// they have without --fast.
var gentle = []string{"--probe-interval", "1s", "--suspicion-mult", "4"}

// job is a `testnode run sum --join` process: the root of a job.
type job struct {
	tag    string
	hold   string
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr proctest.LockedBuffer
	done   chan struct{}
	err    error
}

// start starts a job tagged tag whose root joins seed, held until
// release; it is killed if the test ends first.
func (c *procs) start(tag, seed string, args ...string) *job {
	c.t.Helper()
	j := &job{tag: tag, hold: filepath.Join(c.holds, tag), done: make(chan struct{})}
	if err := os.WriteFile(j.hold, nil, 0o644); err != nil {
		c.t.Fatal(err)
	}
	j.cmd = exec.Command(c.bin, append([]string{"run", "sum",
		"-n", strconv.Itoa(terms), "--leaf", strconv.Itoa(leafTerms), "--pace", pace.String(),
		"--hold", j.hold, "--ledger", c.ledger, "--tag", tag,
		"--join", seed, "--workers", "1", "--json"}, args...)...)
	j.cmd.Stdout, j.cmd.Stderr = &j.stdout, &j.stderr
	if err := j.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() {
		j.err = j.cmd.Wait()
		close(j.done)
	}()
	c.t.Cleanup(func() {
		j.release()
		select {
		case <-j.done:
		default:
			j.cmd.Process.Kill()
			<-j.done
		}
	})
	return j
}

// release lets the job's leaves run at full speed.
func (j *job) release() { os.Remove(j.hold) }

// wait waits for the job to end, fails the test unless it succeeded with
// the right sum, and returns its report.
func (j *job) wait(t *testing.T) map[string]any {
	t.Helper()
	select {
	case <-j.done:
	case <-time.After(jobWait):
		t.Fatalf("job %s did not end within %v of its release: a lost task?\n%s", j.tag, jobWait, j.stderr.String())
	}
	if strings.Contains(j.stderr.String(), "WARNING: DATA RACE") {
		t.Errorf("the root of job %s raced:\n%s", j.tag, j.stderr.String())
	}
	if j.err != nil {
		t.Fatalf("job %s: %v\n%s", j.tag, j.err, j.stderr.String())
	}
	var rep map[string]any
	if err := json.Unmarshal(j.stdout.Bytes(), &rep); err != nil {
		t.Fatalf("job %s: its output is not one JSON object: %v\n%s", j.tag, err, j.stdout.String())
	}
	if rep["verified"] != true || rep["result"] != float64(want) {
		t.Fatalf("job %s: result %v (verified %v), want %d", j.tag, rep["result"], rep["verified"], want)
	}
	return rep
}

// runs reads the ledger: for each job's tag, for each leaf (its first
// term), the processes that ran it, one entry a run.
func (c *procs) runs() map[string]map[int64][]int {
	c.t.Helper()
	out := map[string]map[int64][]int{}
	files, err := os.ReadDir(c.ledger)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, f := range files {
		pid, err := strconv.Atoi(f.Name())
		if err != nil {
			c.t.Fatalf("a stranger in the ledger: %s", f.Name())
		}
		b, err := os.ReadFile(filepath.Join(c.ledger, f.Name()))
		if err != nil {
			c.t.Fatal(err)
		}
		// A line still being written has no newline yet: it is read next
		// time.
		b = b[:bytes.LastIndexByte(b, '\n')+1]
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if line == "" {
				continue
			}
			tag, lo, ok := strings.Cut(line, " ")
			at, err := strconv.ParseInt(lo, 10, 64)
			if !ok || err != nil || at < 0 || at >= terms || at%leafTerms != 0 {
				c.t.Fatalf("ledger %s: line %q is no leaf", f.Name(), line)
			}
			if out[tag] == nil {
				out[tag] = map[int64][]int{}
			}
			out[tag][at] = append(out[tag][at], pid)
		}
	}
	return out
}

// ranBy counts the leaves of job tag that the processes ran, in runs.
func ranBy(runs map[string]map[int64][]int, tag string, pids ...int) (n int) {
	for _, by := range runs[tag] {
		for _, p := range by {
			for _, q := range pids {
				if p == q {
					n++
				}
			}
		}
	}
	return n
}

// until polls cond until it holds, failing the test with what after
// condWait.
func (c *procs) until(what string, cond func() bool) {
	c.t.Helper()
	for deadline := time.Now().Add(condWait); !cond(); {
		if time.Now().After(deadline) {
			c.t.Fatalf("not so within %v: %s", condWait, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ranOnce fails the test unless every leaf of job tag ran exactly once.
func (c *procs) ranOnce(tag string) {
	c.t.Helper()
	runs := c.runs()[tag]
	twice := 0
	for _, by := range runs {
		if len(by) > 1 {
			twice++
		}
	}
	if len(runs) != leaves || twice > 0 {
		c.t.Errorf("job %s: %d of its %d leaves ran, %d of them more than once", tag, len(runs), leaves, twice)
	}
}

// pid is a node process's id, which its ledger file is named by.
func pid(n *proctest.Node) int { return n.Cmd.Process.Pid }

// exited waits for a node process to exit, failing the test after
// exitWait, and returns its exit error.
func exited(t *testing.T, n *proctest.Node) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- n.Cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(exitWait):
		n.Cmd.Process.Kill()
		<-done
		t.Fatalf("node %s still ran %v after it was told to go:\n%s", n.Name, exitWait, n.Stderr)
		return nil
	}
}

// nodeReport is the entry of a job's report for the node named name, or
// nil.
func nodeReport(rep map[string]any, name string) map[string]any {
	for _, pn := range proctest.PerNode(rep) {
		if pn["node"] == name {
			return pn
		}
	}
	return nil
}

// moves is 1 if node n said it stopped taking part in a job it had
// taken part in, and took part in another job, 0 if not.
func moves(n *proctest.Node) int {
	took := map[string]bool{} // the jobs it took part in
	var left []string         // those it then stopped taking part in
	for _, line := range strings.Split(n.Stderr.String(), "\n") {
		if !strings.Contains(line, `msg="taking part in a job"`) {
			continue
		}
		var job string
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "job="); ok {
				job = v
			}
		}
		if strings.Contains(line, " active=true") {
			took[job] = true
		} else if took[job] {
			left = append(left, job)
		}
	}
	for _, job := range left {
		for other := range took {
			if other != job {
				return 1
			}
		}
	}
	return 0
}

// TestProcessNodeJoinsMidJob: a node process started after a job began,
// on a cluster of one node and the job's root, is invited to the job and
// gets work through the running scheduler (Fishing: it asks; balancing:
// it is pushed to), borrows tasks and runs leaves of them; the sum is
// right, every leaf ran exactly once, and the root's report says the node
// joined during the job and got work from another node.
func TestProcessNodeJoinsMidJob(t *testing.T) {
	for _, sched := range []string{"fishing:random", "balance"} {
		t.Run(sched, func(t *testing.T) {
			c := newProcs(t)
			seed := c.node("--sched", sched)
			j := c.start("a", seed.Gossip, append([]string{"--sched", sched}, gentle...)...)
			c.until("the seed runs leaves of the job", func() bool { return ranBy(c.runs(), "a", pid(seed)) > 0 })
			late := c.node("--join", seed.Gossip, "--sched", sched)
			c.until("the node that joined late runs leaves of the job", func() bool { return ranBy(c.runs(), "a", pid(late)) > 0 })
			j.release()
			rep := j.wait(t)

			c.ranOnce("a")
			if n := len(proctest.PerNode(rep)); n != 3 {
				t.Errorf("the report has %d nodes, want 3 (the root, the seed and the late node)", n)
			}
			pn := nodeReport(rep, late.Name)
			if pn == nil {
				t.Fatalf("the report has no entry for the late node %s: %v", late.Name, rep["per_node"])
			}
			joined, _ := pn["joined_at_ns"].(float64)
			first, _ := pn["first_work_ns"].(float64)
			if joined <= 0 || first <= 0 || proctest.Stat(pn, "tasks_received") == 0 || proctest.Stat(pn, "tasks_run") == 0 {
				t.Errorf("the late node: joined %v ns into the job, first work %v ns later, %v tasks borrowed, %v run; want all above 0",
					joined, first, proctest.Stat(pn, "tasks_received"), proctest.Stat(pn, "tasks_run"))
			}
			if s := nodeReport(rep, seed.Name); s == nil || s["joined_at_ns"] != nil {
				t.Errorf("the seed, there when the job began, is reported as %v", s)
			}
			if r := proctest.Stat(rep, "tasks_rerun"); r != 0 {
				t.Errorf("%v tasks were run again, though no node failed", r)
			}
			t.Logf("the late node joined %.3f s into the job, got work %.3f s later, ran %d of %d leaves",
				joined/1e9, first/1e9, ranBy(c.runs(), "a", pid(late)), leaves)
		})
	}
}

// TestProcessNodeDrainsMidJob: a node process told to leave while it
// holds borrowed tasks of a job, by SIGTERM (its process drains the node,
// Node.Drain) or by cluster.RequestDrain from another process, hands back
// the tasks it has not started, finishes those it has, and exits 0; the
// sum is right, no task is run again, every leaf ran exactly once, and
// the drained node's counters are in the job's report. Lenders answer in
// batches of up to 4, so that the node holds tasks it has not started.
func TestProcessNodeDrainsMidJob(t *testing.T) {
	const sched = "fishing:random,tasks=4"
	for _, how := range []string{"SIGTERM", "RequestDrain"} {
		t.Run(how, func(t *testing.T) {
			c := newProcs(t)
			seed := c.node("--sched", sched)
			leaver := c.node("--join", seed.Gossip, "--sched", sched)
			j := c.start("a", seed.Gossip, append([]string{"--sched", sched}, gentle...)...)
			c.until("the node to drain runs leaves of the job", func() bool { return ranBy(c.runs(), "a", pid(leaver)) > 0 })

			var drain cluster.DrainReport
			drained := make(chan error, 1)
			if how == "SIGTERM" {
				leaver.Cmd.Process.Signal(syscall.SIGTERM)
			} else {
				go func() {
					var err error
					drain, err = cluster.RequestDrain(context.Background(), leaver.Tasks, "", nil, condWait)
					drained <- err
				}()
			}
			// It has handed back what it had not started: the rest may go
			// fast.
			leaver.WaitFor(t, "draining: taking no more work", condWait)
			j.release()
			if how == "RequestDrain" {
				select {
				case err := <-drained:
					if err != nil {
						t.Fatalf("RequestDrain: %v\n%s", err, leaver.Stderr)
					}
				case <-time.After(condWait + 10*time.Second): // its own bound is 5 s past condWait
					t.Fatalf("RequestDrain did not return:\n%s", leaver.Stderr)
				}
			}
			if err := exited(t, leaver); err != nil {
				t.Errorf("the drained node exited with %v:\n%s", err, leaver.Stderr)
			}
			rep := j.wait(t)

			c.ranOnce("a")
			if !strings.Contains(leaver.Stderr.String(), "drained; leaving the cluster") {
				t.Errorf("the node did not say it drained:\n%s", leaver.Stderr)
			}
			if nodeReport(rep, leaver.Name) == nil {
				t.Errorf("the drained node's counters are not in the report: %v", rep["per_node"])
			}
			if r := proctest.Stat(rep, "tasks_rerun"); r != 0 {
				t.Errorf("%v tasks were run again after a graceful leave", r)
			}
			returned := proctest.Stat(rep, "tasks_returned")
			if returned == 0 {
				t.Errorf("the drained node handed back no task it had not started")
			}
			if how == "RequestDrain" && (drain.Returned == 0 || float64(drain.Returned) > returned) {
				t.Errorf("RequestDrain says %d tasks were handed back, the job's lenders counted %v", drain.Returned, returned)
			}
			t.Logf("%s: %v tasks handed back, %d of %d leaves ran on the drained node", how, returned, ranBy(c.runs(), "a", pid(leaver)), leaves)
		})
	}
}

// TestProcessNodeDiesMidJob: a node process killed (SIGKILL: no goodbye)
// while it runs borrowed tasks of a job falls silent and is declared dead
// by gossip, and its lenders run again what it held (backups, or re-runs); the sum is right, every leaf ran,
// and leaves the dead node had run ran again elsewhere.
func TestProcessNodeDiesMidJob(t *testing.T) {
	c := newProcs(t)
	// Fast failure detection: the point is a death, noticed in a second.
	seed := c.node("--fast")
	victim := c.node("--fast", "--join", seed.Gossip)
	j := c.start("a", seed.Gossip)
	c.until("the node to kill has run leaves of the job", func() bool { return ranBy(c.runs(), "a", pid(victim)) >= 2 })
	victim.Cmd.Process.Kill()
	exited(t, victim)
	j.release()
	rep := j.wait(t)

	runs := c.runs()["a"]
	byVictim, again := 0, 0
	for _, by := range runs {
		for _, p := range by {
			if p == pid(victim) {
				byVictim++
				if len(by) > 1 {
					again++ // the victim ran it, and so did another
				}
			}
		}
	}
	if len(runs) != leaves {
		t.Errorf("%d of the %d leaves ran", len(runs), leaves)
	}
	// Run again as a backup once the node fell silent, or once gossip
	// declared it dead, whichever came first.
	if r := proctest.Stat(rep, "tasks_rerun") + proctest.Stat(rep, "backups"); r == 0 {
		t.Errorf("a node died holding borrowed tasks, and no lender counted a task run again or backed up")
	}
	if again == 0 {
		t.Errorf("none of the %d leaves the dead node ran was run again", byVictim)
	}
	if nodeReport(rep, victim.Name) != nil {
		t.Errorf("the dead node has counters in the report: %v", rep["per_node"])
	}
	t.Logf("%v tasks run again, %v backed up; the dead node had run %d leaves, %d of them then ran elsewhere", proctest.Stat(rep, "tasks_rerun"), proctest.Stat(rep, "backups"), byVictim, again)
}

// TestProcessJobsShareNodes: two jobs with roots in two processes run at
// once on the same two serving node processes, which share by
// equipartition (--share equi): the first job gets both nodes; when the
// second comes, one of them leaves the first job for it, and from then on
// the serving nodes run leaves of both jobs at the same time. Both sums
// are right, and each leaf of each job ran exactly once, though a node
// changed jobs under the first.
func TestProcessJobsShareNodes(t *testing.T) {
	c := newProcs(t)
	s1 := c.node("--share", "equi")
	s2 := c.node("--share", "equi", "--join", s1.Gossip)
	serving := []int{pid(s1), pid(s2)}
	a := c.start("a", s1.Gossip, gentle...)
	c.until("both serving nodes run leaves of the first job", func() bool {
		r := c.runs()
		return ranBy(r, "a", pid(s1)) > 0 && ranBy(r, "a", pid(s2)) > 0
	})
	b := c.start("b", s1.Gossip, gentle...)
	c.until("a serving node runs leaves of the second job", func() bool { return ranBy(c.runs(), "b", serving...) > 0 })
	// From here both jobs go on on the serving nodes.
	r := c.runs()
	sinceA, sinceB := ranBy(r, "a", serving...), ranBy(r, "b", serving...)
	c.until("the serving nodes run leaves of both jobs", func() bool {
		r := c.runs()
		return ranBy(r, "a", serving...) > sinceA && ranBy(r, "b", serving...) > sinceB
	})
	if n := len(c.runs()["a"]); n >= leaves {
		t.Fatalf("the first job has run all its leaves while held")
	}
	// One serving node left the first job for the second (share.Equi).
	if moved := moves(s1) + moves(s2); moved != 1 {
		t.Errorf("%d serving nodes left a job they took part in for another, want 1:\n%s\n%s", moved, s1.Stderr, s2.Stderr)
	}
	a.release()
	b.release()
	repA, repB := a.wait(t), b.wait(t)

	for _, tag := range []string{"a", "b"} {
		c.ranOnce(tag)
	}
	for i, rep := range []map[string]any{repA, repB} {
		if r := proctest.Stat(rep, "tasks_rerun"); r != 0 {
			t.Errorf("job %d: %v tasks were run again, though no node failed", i+1, r)
		}
	}
	r = c.runs()
	t.Logf("leaves run on the serving nodes: %d of the first job's, %d of the second's; tasks handed back: %v, %v",
		ranBy(r, "a", serving...), ranBy(r, "b", serving...), proctest.Stat(repA, "tasks_returned"), proctest.Stat(repB, "tasks_returned"))
}
