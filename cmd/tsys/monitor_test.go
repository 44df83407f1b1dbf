package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/promtest"
)

// scrape reads a node's /metrics with the Prometheus text parser.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	families := promtest.Families(t, url+"/metrics")
	sums := map[string]float64{}
	for name, f := range families {
		for _, m := range f.Metric {
			switch {
			case m.Counter != nil:
				sums[name] += m.Counter.GetValue()
			case m.Gauge != nil:
				sums[name] += m.Gauge.GetValue()
			case m.Untyped != nil:
				sums[name] += m.Untyped.GetValue()
			default:
				sums[name] += 1
			}
		}
	}
	return sums
}

// TestMetricsDuringARun: Prometheus can scrape every node while a job runs:
// /metrics parses, the task counters move between two scrapes, messages
// are counted by type, and memberlist's own metrics come through.
func TestMetricsDuringARun(t *testing.T) {
	seed, err := startNode(t, "--bind", "127.0.0.1:0", "--http", "127.0.0.1:0", "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	other, err := startNode(t, "--bind", "127.0.0.1:0", "--join", seed.Gossip, "--http", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wait := startJob(t, "ep", "--class", "A", "--workers", "1", "--join", seed.Gossip)
	seed.WaitFor(t, "serving a job", 20*time.Second)
	first := scrape(t, seed.HTTP)
	time.Sleep(500 * time.Millisecond) // let the job run between the scrapes
	second := scrape(t, seed.HTTP)
	if obj := wait(); obj["verified"] != true {
		t.Fatalf("the job: verified=%v", obj["verified"])
	}
	if !(second["tsys_tasks_run_total"] > first["tsys_tasks_run_total"] || second["tsys_busy_seconds_total"] > first["tsys_busy_seconds_total"]) {
		t.Errorf("the counters did not move during the run: tasks %v then %v, busy %v then %v",
			first["tsys_tasks_run_total"], second["tsys_tasks_run_total"], first["tsys_busy_seconds_total"], second["tsys_busy_seconds_total"])
	}
	if second["tsys_jobs_total"] < 1 || second["tsys_members"] != 3 || second["tsys_workers"] != 1 {
		t.Errorf("jobs %v, members %v, workers %v", second["tsys_jobs_total"], second["tsys_members"], second["tsys_workers"])
	}
	after := scrape(t, other.HTTP)
	if after["tsys_messages_sent_total"] == 0 {
		t.Error("no message counted by type")
	}
	memberlist := 0
	for name := range after {
		if strings.HasPrefix(name, "memberlist_") {
			memberlist++
		}
	}
	if memberlist == 0 {
		t.Error("memberlist's own metrics are missing")
	}
}

// TestJobsListsWhatRunsWhere: tsys jobs, asked of any node, lists the
// running job with its root and every node serving it.
func TestJobsListsWhatRunsWhere(t *testing.T) {
	seed, err := startNode(t, "--bind", "127.0.0.1:0", "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	other, err := startNode(t, "--bind", "127.0.0.1:0", "--join", seed.Gossip)
	if err != nil {
		t.Fatal(err)
	}
	job := exec.Command(tsysBin, "run", "ep", "--class", "B", "--workers", "1", "--join", seed.Gossip)
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { job.Process.Kill(); job.Wait() }()
	seed.WaitFor(t, "serving a job", 20*time.Second)
	jobs := clusterJobs(t, other.Tasks)
	if len(jobs) != 1 || len(jobs[0].Nodes) != 3 || jobs[0].Root == "" {
		t.Fatalf("tsys jobs: %+v", jobs)
	}
	text, err := exec.Command(tsysBin, "jobs", seed.Tasks).Output()
	if err != nil || !strings.Contains(string(text), jobs[0].Job) || !strings.Contains(string(text), jobs[0].Root) {
		t.Errorf("tsys jobs: %v\n%s", err, text)
	}
	if out, err := exec.Command(tsysBin, "jobs", "127.0.0.1:1").CombinedOutput(); err == nil || !strings.Contains(string(out), "127.0.0.1:1") {
		t.Errorf("tsys jobs at a dead address: %v\n%s", err, out)
	}
}

// TestRunWithHTTP: tsys run --http on one node runs the job as a cluster
// of one that the monitor watches, with the same answer; it refuses
// --serial, which runs no runtime to watch.
func TestRunWithHTTP(t *testing.T) {
	obj := tsysRun(t, "uts", "--tree", "T5", "--workers", "2", "--http", "127.0.0.1:0")
	if obj["verified"] != true || obj["nodes"] != 1.0 {
		t.Errorf("uts with --http: verified=%v nodes=%v", obj["verified"], obj["nodes"])
	}
	out, err := exec.Command(tsysBin, "run", "fib", "--serial", "--http", "127.0.0.1:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--http watches the runtime") {
		t.Errorf("--serial --http: %v\n%s", err, out)
	}
}

// browser finds headless Chromium: CI installs Debian's chromium (.ci/run
// sets TSYS_REQUIRE_BROWSER so that a missing one fails there).
func browser(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("TSYS_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium to test the dashboard with: apt-get install chromium")
	}
	t.Skip("no chromium here to test the dashboard with (apt-get install chromium; CI has it)")
	return ""
}

var domRow = regexp.MustCompile(`<tr data-node="([^"]+)">.*?<td class="tasks-run">(\d+)</td>.*?<td class="steals">(\d+)</td>`)

// TestDashboardInABrowser: a real headless browser loads the dashboard of
// one node while a job runs on three, and the page shows every node with
// the tasks it ran and the steals it made. TSYS_SCREENSHOT=FILE also saves
// a screenshot of it (README's is made so).
func TestDashboardInABrowser(t *testing.T) {
	chrome := browser(t)
	seed, err := startNode(t, "--bind", "127.0.0.1:0", "--http", "127.0.0.1:0", "--workers", "2", "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := startNode(t, "--bind", "127.0.0.1:0", "--join", seed.Gossip, "--workers", "2"); err != nil {
		t.Fatal(err)
	}
	// UTS T1L: seconds of fine-grained work, longer than the browser
	// takes; it is stopped once the page has been read.
	job := exec.Command(tsysBin, "run", "uts", "--tree", "T1L", "--workers", "2", "--join", seed.Gossip)
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { job.Process.Kill(); job.Wait() }()
	seed.WaitFor(t, "serving a job", 20*time.Second)
	time.Sleep(300 * time.Millisecond) // some work done, to show
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	page := seed.HTTP + "/"
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1300,650"}
	if shot := os.Getenv("TSYS_SCREENSHOT"); shot != "" {
		if out, err := exec.CommandContext(ctx, chrome, append(base, "--virtual-time-budget=4000", "--screenshot="+shot, page)...).CombinedOutput(); err != nil {
			t.Fatalf("screenshot: %v\n%s", err, out)
		}
	}
	dom, err := exec.CommandContext(ctx, chrome, append(base, "--virtual-time-budget=3000", "--dump-dom", page)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	rows := domRow.FindAllStringSubmatch(string(dom), -1)
	if len(rows) != 3 {
		t.Fatalf("the dashboard shows %d nodes, want 3 (the two nodes and the job's own):\n%s", len(rows), dom)
	}
	steals := 0
	for _, r := range rows {
		tasks, _ := strconv.Atoi(r[2])
		s, _ := strconv.Atoi(r[3])
		steals += s
		if tasks == 0 {
			t.Errorf("the dashboard shows node %s with no task run", r[1])
		}
	}
	if steals == 0 {
		t.Error("the dashboard shows no steal on any node")
	}
}
