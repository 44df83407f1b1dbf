package main

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// screenshots is where TestDashboardJobPages writes its screenshots, for
// docs/DASHBOARD.md: go test ./cmd/tsys -run TestDashboardJobPages -args
// -screenshots docs/img (from the module's root, an absolute path or one
// relative to cmd/tsys).
var screenshots = flag.String("screenshots", "", "write the dashboard's screenshots to this folder")

var (
	jobRow    = regexp.MustCompile(`<tr data-job="([0-9a-f]+)">.*?data-done="(\d+)" data-total="(\d+)"`)
	chartLine = regexp.MustCompile(`<div class="chart" data-metric="([a-z_]+)">.*?</svg>`)
	points    = regexp.MustCompile(`data-points="(\d+)"`)
	linkCell  = regexp.MustCompile(`<td class="link" data-from="[^"]+" data-to="[^"]+" data-tasks="[1-9]\d*"`)
	streamRow = regexp.MustCompile(`<span class="streamnode" data-node="([^"]+)" data-rects="(\d+)" data-named="(\d+)"`)
	nodesFit  = regexp.MustCompile(`<div class="fit" data-overflows="(true|false)"><table id="nodes">`)
	waitRow   = regexp.MustCompile(`<span class="streamnode" data-node="([^"]+)" data-rects="\d+" data-named="\d+" data-waiting="(\d+)"`)
)

// waiting reads the task stream's legend of a dumped page: by node, the
// stretches drawn as waiting for another node's answer.
func waiting(dom string) map[string]int {
	out := map[string]int{}
	for _, m := range waitRow.FindAllStringSubmatch(dom, -1) {
		out[m[1]], _ = strconv.Atoi(m[2])
	}
	return out
}

// streamed reads the task stream's legend of a dumped page: by node, the
// rectangles drawn that are task frames.
func streamed(dom string) map[string]int {
	out := map[string]int{}
	for _, m := range streamRow.FindAllStringSubmatch(dom, -1) {
		out[m[1]], _ = strconv.Atoi(m[3])
	}
	return out
}

// streamFilled counts the nodes whose task stream drew task frames.
func streamFilled(dom string) int {
	n := 0
	for _, named := range streamed(dom) {
		if named > 0 {
			n++
		}
	}
	return n
}

// progress is a job's row on the page: its units done and total.
type progress struct{ done, total int }

// jobRows reads the jobs table of a dumped page.
func jobRows(dom string) map[string]progress {
	out := map[string]progress{}
	for _, m := range jobRow.FindAllStringSubmatch(dom, -1) {
		d, _ := strconv.Atoi(m[2])
		tot, _ := strconv.Atoi(m[3])
		out[m[1]] = progress{d, tot}
	}
	return out
}

// chrome loads page in headless Chromium for budget of its virtual time,
// then dumps its DOM, or with shot set, writes its screenshot there.
func chrome(t *testing.T, bin, page string, budget time.Duration, shot string) string {
	t.Helper()
	return chromeSized(t, bin, page, "1300,900", budget, shot)
}

// chromeSized is chrome in a window of size ("WIDTH,HEIGHT").
func chromeSized(t *testing.T, bin, page, size string, budget time.Duration, shot string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=" + size,
		"--virtual-time-budget=" + strconv.Itoa(int(budget.Milliseconds()))}
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	} else {
		args = append(args, "--dump-dom")
	}
	out, err := exec.CommandContext(ctx, bin, append(args, page)...).Output()
	if err != nil {
		t.Fatalf("chromium on %s: %v", page, err)
	}
	return string(out)
}

// chromeUntil dumps page as chrome does, again while the dump does not
// satisfy ok, for up to chromePatience: on a loaded machine a node answers
// a poll later than the page waits for (300 ms) and is left out of it, and
// the page's virtual time passes with fewer polls answered.
func chromeUntil(t *testing.T, bin, page string, budget time.Duration, ok func(dom string) bool) string {
	t.Helper()
	began := time.Now()
	dom := chrome(t, bin, page, budget, "")
	for !ok(dom) && time.Since(began) < chromePatience {
		dom = chrome(t, bin, page, budget, "")
	}
	return dom
}

// chromePatience bounds chromeUntil's tries.
const chromePatience = 90 * time.Second

// chartsGrown says whether the page has its 9 charts, each line of them
// of more than one point: the page polled more than once.
func chartsGrown(dom string) bool {
	charts := chartLine.FindAllStringSubmatch(dom, -1)
	if len(charts) < 9 {
		return false
	}
	for _, c := range charts {
		for _, l := range points.FindAllStringSubmatch(c[0], -1) {
			if n, _ := strconv.Atoi(l[1]); n < 2 {
				return false
			}
		}
	}
	return true
}

// TestDashboardJobPages: a real headless browser watches two jobs on two
// nodes. The page lists the first job with the progress its tasks report
// (EP counts its batches), every chart has a line per node of more than
// one point, the progress moves between two loads, the second job shows
// up beside the first, and its own page (?job=ID) shows it alone. The
// task stream draws the frames the nodes ran while the page watched.
func TestDashboardJobPages(t *testing.T) {
	bin := browser(t)
	seed, err := startNode(t, "--bind", "127.0.0.1:0", "--http", "127.0.0.1:0", "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := startNode(t, "--bind", "127.0.0.1:0", "--join", seed.Gossip); err != nil {
		t.Fatal(err)
	}
	// EP class B: tens of seconds, longer than the browser takes; both
	// jobs are stopped once the pages have been read.
	startEP := func() {
		job := exec.Command(tsysBin, "run", "ep", "--class", "B", "--workers", "1", "--join", seed.Gossip)
		if err := job.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { job.Process.Kill(); job.Wait() })
	}
	startEP()
	seed.WaitFor(t, "serving a job", 20*time.Second)
	page := seed.HTTP + "/"

	dom := chromeUntil(t, bin, page, 3*time.Second, func(dom string) bool {
		return len(jobRows(dom)) == 1 && streamFilled(dom) >= 2 && chartsGrown(dom)
	})
	first := jobRows(dom)
	if len(first) != 1 {
		t.Fatalf("the page lists %d jobs, want 1:\n%s", len(first), dom)
	}
	var id string
	for id = range first {
	}
	if p := first[id]; p.total == 0 {
		t.Errorf("job %s: progress %+v, want EP's total of batches", id, p)
	}
	charts := chartLine.FindAllStringSubmatch(dom, -1)
	if len(charts) < 9 {
		t.Errorf("the page has %d charts, want 9", len(charts))
	}
	for _, c := range charts {
		lines := points.FindAllStringSubmatch(c[0], -1)
		if len(lines) != 3 { // the two nodes and the job's own
			t.Errorf("chart %s has %d lines, want one per node (3)", c[1], len(lines))
		}
		for _, l := range lines {
			if n, _ := strconv.Atoi(l[1]); n < 2 {
				t.Errorf("chart %s has a line of %d points, want it to grow past one", c[1], n)
			}
		}
	}
	// The task stream, which the nodes record from the page's first
	// request on, draws the frames of at least the two nodes that run
	// the job's tasks.
	if n := streamFilled(dom); n < 2 {
		t.Errorf("the task stream drew task frames of %d nodes, want 2 or more: %v", n, streamed(dom))
	}
	// Each node's legend counts its waiting stretches too; how many the
	// job draws depends on the load, so only that they are counted.
	if w, s := waiting(dom), streamed(dom); len(w) != len(s) {
		t.Errorf("the task stream counts waiting stretches of %d nodes of %d: %v", len(w), len(s), w)
	} else {
		t.Logf("waiting stretches drawn, by node: %v", w)
	}
	// The node table fits the window, 1300 px wide, with four nodes.
	if m := nodesFit.FindStringSubmatch(dom); m == nil || m[1] != "false" {
		t.Errorf("the node table does not fit a window 1300 px wide (%v)", m)
	}
	if lent := linkCell.FindAllString(dom, -1); len(lent) == 0 {
		t.Errorf("the matrix of who lent to whom has no cell of tasks lent:\n%s", dom)
	}

	startEP()
	waitJobs(t, seed.HTTP, 2)
	dom = chromeUntil(t, bin, page, 2*time.Second, func(dom string) bool { return len(jobRows(dom)) == 2 })
	both := jobRows(dom)
	if len(both) != 2 {
		t.Fatalf("the page lists %d jobs, want 2:\n%s", len(both), dom)
	}
	if both[id].done <= first[id].done {
		t.Errorf("job %s's progress did not move: %d then %d", id, first[id].done, both[id].done)
	}
	var second string
	for j := range both {
		if j != id {
			second = j
		}
	}
	own := chrome(t, bin, page+"?job="+second, 2*time.Second, "")
	if rows := jobRows(own); len(rows) != 1 || !hasJob(rows, second) {
		t.Errorf("the page of job %s lists %v, want that job alone", second, rows)
	}
	if !regexp.MustCompile(`<h1>tsys job ` + second + `</h1>`).MatchString(own) {
		t.Errorf("the page of job %s is not titled so", second)
	}

	if dir := *screenshots; dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		chrome(t, bin, page, 4*time.Second, filepath.Join(dir, "dashboard.png"))
		chrome(t, bin, page+"?job="+id, 4*time.Second, filepath.Join(dir, "dashboard-job.png"))
		// The whole page, down to the task stream at its foot.
		chromeSized(t, bin, page, "1300,1700", 6*time.Second, filepath.Join(dir, "dashboard-stream.png"))
	}
}

// waitJobs waits, at most a minute, for the cluster to list n jobs.
func waitJobs(t *testing.T, http0 string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if jobsListed(http0) >= n {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the cluster did not list %d jobs in a minute", n)
}

// jobsListed counts the jobs the nodes of the cluster serve or root.
func jobsListed(base string) int {
	resp, err := http.Get(base + "/api/cluster")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var snaps []struct {
		Jobs []struct {
			Job string `json:"job"`
		} `json:"jobs"`
	}
	if json.NewDecoder(resp.Body).Decode(&snaps) != nil {
		return 0
	}
	jobs := map[string]bool{}
	for _, s := range snaps {
		for _, j := range s.Jobs {
			jobs[j.Job] = true
		}
	}
	return len(jobs)
}

func hasJob(rows map[string]progress, job string) bool {
	_, ok := rows[job]
	return ok
}
