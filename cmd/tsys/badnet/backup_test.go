package badnet

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/netnstest"
	"github.com/tsys-go/tsys/internal/proctest"
)

// The flags of TestBackupsForACutNode, which bench/backup.sh sets to
// measure (bench/README.md, "A node cut off for a few seconds").
var (
	cutRuns    = flag.Int("cut-runs", 1, "TestBackupsForACutNode: how many undisturbed jobs and jobs with a cut to run")
	cutClass   = flag.String("cut-class", "A", "TestBackupsForACutNode: the EP class of its jobs")
	cutFor     = flag.Duration("cut-for", 4*time.Second, "TestBackupsForACutNode: how long the worker is cut off")
	cutAfter   = flag.Duration("cut-after", 0, "TestBackupsForACutNode: how long after the worker first borrows in a job it is cut off")
	cutMeasure = flag.Bool("cut-measure", false, "TestBackupsForACutNode: measure only, asking no backups of a cut (for a tree before them)")
	cutCSV     = flag.String("cut-csv", "", "TestBackupsForACutNode: append a line per job to this file: run,kind,wall_seconds,backups,tasks_rerun,late_results")
)

// TestBackupsForACutNode: three nodes in network namespaces on a bridge
// (a seed node, a worker node and the job's client, the root, one
// worker each, keyed, on memberlist's LAN timing, under which a cut of
// a few seconds goes unnoticed)
// run EP undisturbed, then with the worker's bridge port down for
// -cut-for from the moment it first borrows work: the lenders hear
// nothing from it and start its loans again elsewhere (backups) before
// gossip declares it dead. Every answer is verified, an undisturbed job
// starts no backup, and a job with a cut starts at least one. Class A,
// so that the worker still holds its share when the cut comes, whatever
// the load; a cut of 4 s, four times a backup's least limit, so that a
// loaded lender, which counts only part of its own stalls as its
// borrowers' silence, still backs up within it, however starved the
// machine. How long the jobs take is bench/backup.sh's to measure, not
// this test's.
func TestBackupsForACutNode(t *testing.T) {
	if testing.Short() {
		t.Skip("a cluster with a node cut off for seconds: -short skips it")
	}
	h := netnstest.Bridged(t, 3, true)
	key := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(key, []byte("a key for the backup tests"), 0o600); err != nil {
		t.Fatal(err)
	}
	node := func(i int, args ...string) *proctest.Node {
		t.Helper()
		args = append([]string{"node", "--workers", "1", "--bind", h.Addrs[i] + ":7946", "--key-file", key}, args...)
		n, err := proctest.StartNode(t, netnstest.Command(h.Names[i], tsysBin, args...))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	seed := node(seedHost)
	// At debug level the worker logs each loan it takes in, which the
	// cut waits for: cut off before it holds work, it would hold nothing
	// to start again.
	worker := node(workerHost, "--join", seed.Gossip, "--log-level", "debug")
	j := &job{t: t, h: h, args: []string{"run", "ep", "--class", *cutClass, "--workers", "1", "--bind", h.Addrs[rootHost] + ":0",
		"--join", seed.Gossip, "--key-file", key, "--min-nodes", "2", "--json"}}
	undisturbed := func(run int) {
		t.Helper()
		took, err := j.run(nil)
		if err != nil {
			t.Fatalf("undisturbed: %v", err)
		}
		j.record(t, run, "undisturbed")
		if b := proctest.Stat(j.report, "backups"); b != 0 {
			t.Errorf("an undisturbed job started %v backups:\n%s", b, j.stderr)
		}
		t.Logf("run %d: undisturbed %v, wall %.3f s", run, took.Round(time.Millisecond), j.report["wall_seconds"])
	}
	for run := 1; run <= max(*cutRuns, 1); run++ {
		undisturbed(run)
		cut := false
		for try := 0; try < 3 && !cut; try++ {
			took, err := j.run(func(ended <-chan struct{}) { cut = cutWhenBorrowing(t, h, worker, ended) })
			if err != nil {
				t.Fatalf("with the worker cut off for %v: %v", *cutFor, err)
			}
			if !cut {
				t.Logf("run %d: the worker borrowed nothing before the job ended; running it again", run)
				continue
			}
			j.record(t, run, "cut")
			t.Logf("run %d: cut %v: %v, wall %.3f s, backups %v, tasks_rerun %v, late_results %v", run, *cutFor, took.Round(time.Millisecond),
				j.report["wall_seconds"], proctest.Stat(j.report, "backups"), proctest.Stat(j.report, "tasks_rerun"), proctest.Stat(j.report, "late_results"))
			if !*cutMeasure && proctest.Stat(j.report, "backups") == 0 {
				t.Errorf("a job whose worker was cut off for %v while it held work started no backup:\n%s", *cutFor, j.stderr)
			}
		}
		if !cut {
			t.Fatalf("the worker borrowed nothing in 3 jobs: nothing was cut off")
		}
	}
	// After the cuts the three nodes work together again, and nothing is
	// run twice.
	undisturbed(max(*cutRuns, 1) + 1)
	if j.nodes < 3 {
		t.Errorf("after the cuts %d nodes ran tasks, want 3", j.nodes)
	}
}

// cutWhenBorrowing cuts the worker off for -cut-for, -cut-after after it
// next logs that it borrowed tasks, and says whether it did: a job that
// ends first (ended) is not cut.
func cutWhenBorrowing(t *testing.T, h *netnstest.Hosts, worker *proctest.Node, ended <-chan struct{}) bool {
	const borrowed = `msg="borrowed tasks"`
	from := len(worker.Stderr.String())
	for !strings.Contains(worker.Stderr.String()[from:], borrowed) {
		select {
		case <-ended:
			return false
		case <-time.After(2 * time.Millisecond):
		}
	}
	select {
	case <-ended:
		return false
	case <-time.After(*cutAfter):
	}
	h.SetLink(t, workerHost, false)
	time.Sleep(*cutFor)
	h.SetLink(t, workerHost, true)
	return true
}

// record appends the last job's figures to -cut-csv.
func (j *job) record(t *testing.T, run int, kind string) {
	if *cutCSV == "" {
		return
	}
	f, err := os.OpenFile(*cutCSV, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%d,%s,%v,%v,%v,%v\n", run, kind, j.report["wall_seconds"], proctest.Stat(j.report, "backups"),
		proctest.Stat(j.report, "tasks_rerun"), proctest.Stat(j.report, "late_results"))
}
