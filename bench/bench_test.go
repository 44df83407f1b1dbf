package bench

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/report"
	"github.com/tsys-go/tsys/internal/sched"
)

func testMatrix() Matrix {
	return Matrix{
		Jobs: ParseJobs("ep --class S; uts --tree T5"),
		Configs: []Config{{Serial: true, Nodes: 1, Workers: 1}, {Nodes: 1, Workers: 1},
			{Nodes: 2, Workers: 1, Sched: "fishing:random"}, {Nodes: 2, Workers: 1, Sched: "balance"},
			{Nodes: 3, Workers: 1, Sched: "fishing:random"}, {Nodes: 3, Workers: 1, Sched: "balance"}},
		Loads:  ParseLoads("none;1=0.5:2s/2s"),
		Reps:   3,
		Warmup: 1,
	}
}

// TestCellsLeaveOutLoadsOnMissingNodes: a hog on node 1 means nothing on
// one node or beside a serial run; those cells are left out and listed.
func TestCellsLeaveOutLoadsOnMissingNodes(t *testing.T) {
	cells, skipped := testMatrix().Cells()
	if len(cells) != 2*(6+4) || len(skipped) != 2*2 {
		t.Fatalf("%d cells, %d skipped; want 20 and 4", len(cells), len(skipped))
	}
	for _, c := range skipped {
		if c.Load.Hog == "" || c.Config.Nodes > 1 {
			t.Errorf("left out %s", c)
		}
	}
	if got := strings.Join(cells[len(cells)-1].Args(), " "); got != "uts --tree T5 --nodes 3 --workers 1 --sched balance --pin --hog 1=0.5:2s/2s" {
		t.Errorf("args %q", got)
	}
}

// TestScheduleRotates: every repetition runs every cell once, each starts
// at another cell, and warm-ups (one per job) come first.
func TestScheduleRotates(t *testing.T) {
	m := testMatrix()
	cells, _ := m.Cells()
	steps := m.Schedule(cells)
	if len(steps) != 2+3*len(cells) {
		t.Fatalf("%d steps", len(steps))
	}
	if steps[0].Rep != -1 || steps[1].Rep != -1 || cells[steps[0].Cell].Job.String() == cells[steps[1].Cell].Job.String() {
		t.Errorf("warm-ups %v %v", steps[0], steps[1])
	}
	firsts := map[int]bool{}
	for r := 0; r < 3; r++ {
		seen := map[int]bool{}
		rep := steps[2+r*len(cells) : 2+(r+1)*len(cells)]
		for _, s := range rep {
			if s.Rep != r || seen[s.Cell] {
				t.Fatalf("rep %d: step %v twice or misnumbered", r, s)
			}
			seen[s.Cell] = true
		}
		firsts[rep[0].Cell] = true
	}
	if len(firsts) != 3 {
		t.Errorf("repetitions start at cells %v, want 3 different", firsts)
	}
}

// fakeRun answers as tsys run would, with times that make the ratios
// known: serial 1 s, one node 1.2 s, N nodes 1.2/(0.8 N) s.
func fakeRun(args []string) (*report.Report, error) {
	line := strings.Join(args, " ")
	nodes := 1
	for i, a := range args {
		if a == "--nodes" {
			fmt.Sscan(args[i+1], &nodes)
		}
	}
	secs := 1.2 / (0.8 * float64(nodes))
	if nodes == 1 {
		secs = 1.2
	}
	if strings.Contains(line, "--serial") {
		secs = 1.0
	}
	r := &report.Report{App: args[0], Verified: true, Nodes: nodes, Workers: 1, WallSeconds: secs,
		Stats: cluster.JobStats{Stats: sched.Stats{TasksRun: 100, LocalSteals: 0, IdleNanos: int64(0.1 * secs * 1e9 * float64(nodes))},
			NetStats: cluster.NetStats{RemoteSteals: 10, TasksSent: 10, MessagesSent: int64(20 * nodes)}}}
	for i := 0; i < nodes; i++ {
		st := cluster.JobStats{Stats: sched.Stats{TasksRun: 50, BusyNanos: int64(secs * 0.9e9), IdleNanos: int64(secs * 0.1e9)}}
		r.PerNode = append(r.PerNode, cluster.NodeReport{Node: fmt.Sprint("n", i), Workers: 1, Stats: st, PerWorker: []cluster.JobStats{st}})
	}
	if strings.Contains(line, "balance") {
		r.Stats.StatusSent = 30
	}
	return r, nil
}

func runTestMatrix(t *testing.T) *Results {
	t.Helper()
	var calls int
	res := Run(testMatrix(), fakeRun, func(s RunStep) {
		if !s.Running {
			calls++
		}
	})
	if calls != 2+3*20 || len(res.Samples) != 3*20 {
		t.Fatalf("%d progress calls, %d samples", calls, len(res.Samples))
	}
	return res
}

// TestSummaryRatios: E_N, speedups against one node and serial, and the
// medians come out of the runs as defined.
func TestSummaryRatios(t *testing.T) {
	for _, s := range runTestMatrix(t).Summarize() {
		near := func(name string, got, want float64) {
			if d := got - want; d > 1e-9 || d < -1e-9 {
				t.Errorf("%s %s %s: %s %v, want %v", s.App, s.Config, s.LoadName, name, got, want)
			}
		}
		switch {
		case s.Cell.Config.Serial:
			near("median", s.Median, 1)
		case s.Nodes == 1:
			near("E_N", s.NodeEfficiency, 1)
			near("vs serial", s.VsSerial, 1/1.2)
		default:
			near("E_N", s.NodeEfficiency, 0.8)
			near("efficiency", s.Efficiency, 0.8)
			near("messages", s.Messages, float64(20*s.Nodes))
			near("steal ratio", s.StealRatio, 0.1)
		}
		if !s.Verified || len(s.Seconds) != 3 {
			t.Errorf("%s %s: verified %v, %d samples", s.App, s.Config, s.Verified, len(s.Seconds))
		}
	}
}

// TestFolder: the folder holds a CSV row per run with every counter, Go
// benchmark lines benchstat's parser reads, PNG plots and a summary that
// shows them.
func TestFolder(t *testing.T) {
	res := runTestMatrix(t)
	dir := t.TempDir()
	if _, err := WriteFolder(dir, res, "tsys bench --test"); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(filepath.Join(dir, RunsCSV))
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 1+len(res.Samples) {
		t.Fatalf("runs.csv: %d rows, %v", len(rows), err)
	}
	if len(rows[0]) != len(runColumns)+len(counterNames)+1 || !strings.Contains(strings.Join(rows[0], ","), "busy_ns") {
		t.Errorf("runs.csv header %v", rows[0])
	}
	f, _ = os.Open(filepath.Join(dir, WorkersCSV))
	wrows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(wrows) < len(res.Samples) {
		t.Errorf("workers.csv: %d rows, %v", len(wrows), err)
	}

	f, _ = os.Open(filepath.Join(dir, GoBench))
	rd := benchfmt.NewReader(f, GoBench)
	var n int
	for rd.Scan() {
		if r, ok := rd.Result().(*benchfmt.Result); ok {
			n++
			if v, ok := r.Value("sec/op"); !ok || v <= 0 {
				t.Errorf("benchmark line without a time: %s", r.Name)
			}
			if _, ok := r.Value("tasks-moved/op"); !ok {
				t.Errorf("benchmark line without tasks moved: %s", r.Name)
			}
		}
	}
	f.Close()
	if n != len(res.Samples) {
		t.Errorf("%d benchmark results, want %d", n, len(res.Samples))
	}

	for _, name := range []string{EfficiencyPlot, TrafficPlot, WorkersPlot} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("no %s: %v", name, err)
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width < 300 || cfg.Height < 200 {
			t.Errorf("%s: %v, %dx%d", name, err, cfg.Width, cfg.Height)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, SummaryMD))
	for _, want := range []string{"tsys bench --test", "| ep --class S | hog 1=0.5:2s/2s | 2x1:balance |", "(efficiency.png)", "(traffic.png)", "(workers.png)", "Left out"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
}

// TestFailedRunsAreMarked: a run that fails is left out of its cell's
// medians and marked in every output, and the other cells' runs go on.
func TestFailedRunsAreMarked(t *testing.T) {
	var runs int
	failing := func(args []string) (*report.Report, error) {
		runs++
		if strings.Join(args, " ") == "uts --tree T5 --nodes 2 --workers 1 --sched balance" && runs%2 == 0 {
			return nil, fmt.Errorf("exit status 1: uts failed: the job did not finish within --timeout 1m0s")
		}
		return fakeRun(args)
	}
	res := Run(testMatrix(), failing, nil)
	if len(res.Failures) == 0 || len(res.Samples)+len(res.Failures) != 3*20+countWarmups(res) {
		t.Fatalf("%d failures, %d samples: every run must be tried and counted once", len(res.Failures), len(res.Samples))
	}
	dir := t.TempDir()
	sums, err := WriteFolder(dir, res, "tsys bench --test")
	if err != nil {
		t.Fatal(err)
	}
	var marked Summary
	for _, s := range sums {
		if s.Failed > 0 {
			marked = s
		} else if len(s.Seconds) != 3 {
			t.Errorf("%s %s: %d samples, want 3", s.App, s.Config, len(s.Seconds))
		}
	}
	if marked.Config != "2x1:balance" || !strings.Contains(marked.FirstError, "--timeout") || len(marked.Seconds)+marked.Failed != 3 {
		t.Errorf("the failing cell: %+v", marked)
	}
	for name, want := range map[string]string{
		SummaryMD:  "failed**",
		RunsCSV:    "did not finish within --timeout",
		GoBench:    "# failed run",
		ResultJSON: `"failed_runs":`,
	} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s does not mark the failed runs (%q):\n%s", name, want, b)
		}
	}
}

// countWarmups is how many warm-up runs failed: a failure is recorded
// whether or not the run was a warm-up.
func countWarmups(r *Results) int {
	n := 0
	for _, f := range r.Failures {
		if f.Rep < 0 {
			n++
		}
	}
	return n
}

// TestUpdateReadme rewrites its block and nothing else, and says so when
// the file has no such block.
func TestUpdateReadme(t *testing.T) {
	res := runTestMatrix(t)
	dir := t.TempDir()
	sums, err := WriteFolder(filepath.Join(dir, "results"), res, "tsys bench --test")
	if err != nil {
		t.Fatal(err)
	}
	begin, end := blockMarkers("test")
	path := filepath.Join(dir, "README.md")
	os.WriteFile(path, []byte("# prose\n\n"+begin+"\nold table\n"+end+"\n\n## Decision log\n"), 0o644)
	if err := UpdateReadme(path, "test", filepath.Join(dir, "results"), res, sums, "tsys bench --test"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	for _, want := range []string{"# prose", "## Decision log", "](results/efficiency.png)", "| uts --tree T5 |", end} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("README lacks %q:\n%s", want, got)
		}
	}
	if bytes.Contains(got, []byte("old table")) {
		t.Errorf("the old block stayed:\n%s", got)
	}
	if err := UpdateReadme(path, "other", dir, res, sums, ""); err == nil || !strings.Contains(err.Error(), "no block") {
		t.Errorf("a missing block: %v", err)
	}
}

// TestProgressBarETA: the status names the run going on, its cell and
// repetition; the estimate of the time left is the time per run so far
// times the runs left; the last line stays on screen.
func TestProgressBarETA(t *testing.T) {
	now := time.Unix(0, 0)
	var buf bytes.Buffer
	bar := ProgressBar(&buf, func() time.Time { return now })
	cell := Cell{Job: Job{Args: []string{"fib"}}}
	bar(RunStep{Done: 0, Total: 10, Cell: cell, Rep: -1, Reps: 3, Running: true})
	if !strings.Contains(buf.String(), "0/10 runs, time left unknown; run 1: "+cell.String()+", warm-up") {
		t.Errorf("first line %q", buf.String())
	}
	now = now.Add(10 * time.Second)
	bar(RunStep{Done: 2, Total: 10, Cell: cell, Rep: 0, Reps: 3, Report: &report.Report{WallSeconds: 1}})
	bar(RunStep{Done: 2, Total: 10, Cell: cell, Rep: 1, Reps: 3, Running: true})
	if !strings.Contains(buf.String(), "2/10 runs, 40s left; run 3: "+cell.String()+", rep 2/3; last 1.000 s") {
		t.Errorf("progress line %q", buf.String())
	}
	bar(RunStep{Done: 10, Total: 10, Cell: cell, Rep: 2, Reps: 3})
	if !strings.HasSuffix(buf.String(), "10/10 runs in 10s; last failed\x1b[K\n") {
		t.Errorf("last line %q", buf.String())
	}
}

// TestParsing: configs keep their schedulers' options, presets are found
// by name, and bad configs name what is wanted.
func TestParsing(t *testing.T) {
	if got := SplitConfigs("serial,1x2,2x1:fishing:random,tasks=8,3x1:balance"); len(got) != 4 || got[2] != "2x1:fishing:random,tasks=8" {
		t.Errorf("SplitConfigs: %q", got)
	}
	if _, err := ParseConfig("3y2"); err == nil || !strings.Contains(err.Error(), "NODESxWORKERS") {
		t.Errorf("ParseConfig(3y2): %v", err)
	}
	if c, _ := ParseConfig("2x1:balance"); c.String() != "2x1:balance" || c.SchedName() != "balance" {
		t.Errorf("config %v", c)
	}
	if _, err := LookupPreset("readme"); err != nil {
		t.Error(err)
	}
	if _, err := LookupPreset("nope"); err == nil || !strings.Contains(err.Error(), "readme") {
		t.Errorf("unknown preset: %v", err)
	}
}

// TestIntegerTicks: whole numbers, at most about ten of them, whatever
// the range.
func TestIntegerTicks(t *testing.T) {
	for _, hi := range []float64{4, 17, 256, 1024, 100000} {
		ts := integerTicks{}.Ticks(1, hi)
		if len(ts) == 0 || len(ts) > 11 {
			t.Errorf("1 to %v: %d ticks", hi, len(ts))
		}
		for _, tk := range ts {
			if tk.Value != float64(int64(tk.Value)) {
				t.Errorf("1 to %v: tick %v", hi, tk.Value)
			}
		}
	}
}
