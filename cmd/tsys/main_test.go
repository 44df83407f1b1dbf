package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/apps"
	"github.com/tsys-go/tsys/bench"
	"github.com/tsys-go/tsys/internal/buildinfo"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = realMain(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestHelpExits0: a command's flags, asked for, are printed and are not
// an error; every verb tsys help lists spells them alike, --name (-x
// for a letter), never package flag's -name.
func TestHelpExits0(t *testing.T) {
	code, usage, _ := run(t, "help")
	if code != 0 {
		t.Fatalf("tsys help: exit %d", code)
	}
	goForm := regexp.MustCompile(`(?m)^  -[^\s-][^\s]+`)
	var verbs []string
	for line := range strings.Lines(usage) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "tsys" {
			verbs = append(verbs, f[1])
		}
	}
	if len(verbs) < 10 {
		t.Fatalf("tsys help lists only the verbs %v:\n%s", verbs, usage)
	}
	var helps [][]string
	for _, v := range verbs {
		helps = append(helps, []string{v, "-h"}, []string{v, "--help"})
	}
	helps = append(helps, []string{"run", "fib", "-h"}, []string{"advise", "fib", "--help"})
	for _, args := range helps {
		code, _, stderr := run(t, args...)
		if code != 0 || strings.Contains(stderr, "tsys: ") {
			t.Errorf("tsys %v: exit %d, stderr ending %q; want exit 0 and no error", args, code, tail(stderr))
		}
		if bad := goForm.FindAllString(stderr, 3); len(bad) > 0 || !strings.Contains(stderr, "\n  --") {
			t.Errorf("tsys %v spells flags %q: want every long flag as --name, as every verb's help does:\n%s", args, bad, stderr)
		}
	}
}

// TestVersion: version, --version and -version print the build's version
// line, which names tsys's newest release (internal/buildinfo's tests
// check its format), and exit 0.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		code, stdout, stderr := run(t, arg)
		if code != 0 || !strings.HasPrefix(stdout, "tsys "+buildinfo.Release) || !strings.Contains(stdout, " go1.") || stderr != "" {
			t.Errorf("tsys %s: exit %d, stdout %q, stderr %q; want exit 0 and tsys's version line, tsys %s...", arg, code, stdout, stderr, buildinfo.Release)
		}
	}
}

// TestRunHelp: tsys run -h lists the apps and every common flag; tsys run
// APP -h lists the app's own flags under the app's heading and the common
// ones under theirs, each flag only under its own.
func TestRunHelp(t *testing.T) {
	code, _, help := run(t, "run", "-h")
	common := flagsListed(help[strings.Index(help, "\ncommon flags:\n")+1:])
	if len(common) < 10 {
		t.Fatalf("only %d common flags: %v", len(common), common)
	}
	if code != 0 || !strings.Contains(help, "usage: tsys run PROGRAM [program flags] [common flags]") {
		t.Errorf("tsys run -h: exit %d, want 0 and the synopsis:\n%s", code, help)
	}
	for _, n := range apps.Names() {
		a, _ := apps.Lookup(n)
		if !strings.Contains(help, n+" ") || !strings.Contains(help, a.Summary) {
			t.Errorf("tsys run -h does not list app %s with its summary %q", n, a.Summary)
		}
	}
	_, commonPart, _ := strings.Cut(help, "\ncommon flags:\n")
	if !strings.Contains(commonPart, "workers per node") {
		t.Errorf("tsys run -h: --workers without its help")
	}

	for _, n := range apps.Names() {
		a, _ := apps.Lookup(n)
		// --help: rt's -h is the image height.
		code, _, help := run(t, "run", n, "--help")
		appPart, commonPart, found := strings.Cut(help, "\ncommon flags:\n")
		_, appPart, foundApp := strings.Cut(appPart, "\n"+n+"'s flags:\n")
		if code != 0 || !found || !foundApp {
			t.Errorf("tsys run %s -h: exit %d, want 0 and the sections %q then \"common flags:\":\n%s", n, code, n+"'s flags:", help)
			continue
		}
		own := flag.NewFlagSet(n, flag.ContinueOnError)
		a.Options().Flags(own)
		own.VisitAll(func(f *flag.Flag) {
			name := flagName(f.Name)
			if !hasFlagLine(appPart, name) || hasFlagLine(commonPart, name) {
				t.Errorf("tsys run %s -h: %s should be under %s's flags only:\n%s", n, name, n, help)
			}
		})
		for _, name := range common {
			if hasFlagLine(appPart, name) || !hasFlagLine(commonPart, name) {
				t.Errorf("tsys run %s -h: %s should be under common flags only:\n%s", n, name, help)
			}
		}
	}
	// -h as the README shows it, for an app whose -h is free.
	code, _, help = run(t, "run", "fib", "-h")
	if code != 0 || !strings.Contains(help, "fib's flags:\n  -n int\n") {
		t.Errorf("tsys run fib -h: exit %d, want 0 and -n under fib's flags:\n%s", code, help)
	}
}

// flagsListed are the flags whose entries a help text lists, as spelled
// there (--name, -x).
func flagsListed(help string) []string {
	var out []string
	for line := range strings.Lines(help) {
		if f, ok := strings.CutPrefix(line, "  -"); ok && !strings.HasPrefix(f, " ") {
			out = append(out, "-"+strings.Fields(f)[0])
		}
	}
	return out
}

// flagName spells a flag as the help does: -x for a letter, --name else.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// hasFlagLine reports whether help has a line that starts flag name's
// entry, so that --nodes is not found in --max-nodes' line.
func hasFlagLine(help, name string) bool {
	for line := range strings.Lines(help) {
		if fields := strings.Fields(line); strings.HasPrefix(line, "  -") && len(fields) > 0 && fields[0] == name {
			return true
		}
	}
	return false
}

func tail(s string) string { return s[max(0, len(s)-120):] }

// TestRefusedRunKeepsOutputFiles: a run refused as bad usage after its
// output flags were read leaves the files they name as they were.
func TestRefusedRunKeepsOutputFiles(t *testing.T) {
	dir := t.TempDir()
	timeline, tree := dir+"/keep.json", dir+"/keep.tree"
	for _, p := range []string{timeline, tree} {
		if err := os.WriteFile(p, []byte("precious"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"run", "fib", "-n", "20", "--timeline", timeline, "--key-file", dir + "/no-such-key"},
		{"run", "fib", "-n", "20", "--record-tree", tree, "--timeline-cap", "0"},
	} {
		if code, _, _ := run(t, args...); code != 2 {
			t.Errorf("tsys %v: exit %d, want 2", args, code)
		}
	}
	for _, p := range []string{timeline, tree} {
		if b, _ := os.ReadFile(p); string(b) != "precious" {
			t.Errorf("a refused run changed %s to %q", p, b)
		}
	}
}

// TestJSONContract checks the --json object's fields (docs/CLI.md).
func TestJSONContract(t *testing.T) {
	code, stdout, stderr := run(t, "run", "nqueens", "-n", "8", "--workers", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON object:\n%s", stdout)
	}
	for _, f := range []string{"app", "params", "result", "verified", "nodes", "workers", "scheduler", "inline", "wall_seconds", "stats"} {
		if _, ok := obj[f]; !ok {
			t.Errorf("field %q missing", f)
		}
	}
	stats := obj["stats"].(map[string]any)
	for _, f := range []string{"spawns", "inlined", "tasks_run", "local_steals", "steal_attempts", "remote_steals", "tasks_sent", "tasks_received", "bytes_sent", "messages_sent"} {
		if _, ok := stats[f]; !ok {
			t.Errorf("stats field %q missing", f)
		}
	}
	if obj["app"] != "nqueens" || obj["result"] != float64(92) || obj["verified"] != true ||
		obj["nodes"] != float64(1) || obj["workers"] != float64(2) || obj["inline"] != "load:2" {
		t.Errorf("unexpected values: %v", obj)
	}
	if obj["params"].(map[string]any)["n"] != float64(8) {
		t.Errorf("params = %v", obj["params"])
	}
}

// TestAppInlineDefault: a run that names no inlining policy gets its app's,
// and --inline overrides it.
func TestAppInlineDefault(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "uts", "--tree", "T5", "--json"}, "load:8"},
		{[]string{"run", "uts", "--tree", "T5", "--json", "--inline", "load:3"}, "load:3"},
		{[]string{"run", "nqueens", "-n", "6", "--json"}, "load:2"},
		{[]string{"run", "nqueens", "-n", "6", "--json", "--inline", "off"}, "off"},
	} {
		code, stdout, stderr := run(t, c.args...)
		var obj map[string]any
		if code != 0 || json.Unmarshal([]byte(stdout), &obj) != nil {
			t.Fatalf("%v: exit %d, %s", c.args, code, stderr)
		}
		if obj["inline"] != c.want {
			t.Errorf("%v: inline %v, want %s", c.args, obj["inline"], c.want)
		}
	}
}

// TestOneNodeSchedulerSaysSo: a cluster scheduler asked of a one-node run
// runs and is reported as asked (a sweep over node counts starts at 1),
// with a word that it has nothing to move.
func TestOneNodeSchedulerSaysSo(t *testing.T) {
	code, stdout, stderr := run(t, "run", "fib", "-n", "20", "--sched", "balance", "--json")
	var obj map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &obj) != nil {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	if obj["scheduler"] != "balance" || !strings.Contains(stderr, "--sched balance moves work between nodes, and this run has one") {
		t.Errorf("scheduler %v, stderr %q: want balance, and a word that it has nothing to move", obj["scheduler"], stderr)
	}
}

func TestSerialAndText(t *testing.T) {
	code, stdout, _ := run(t, "run", "fib", "-n", "20", "--serial")
	if code != 0 || !strings.Contains(stdout, "fib = 6765") || !strings.Contains(stdout, "verified") {
		t.Errorf("serial run: exit %d, %q", code, stdout)
	}
	code, stdout, _ = run(t, "run", "fib", "-n", "20", "--inline", "off", "--workers", "2")
	if code != 0 || !strings.Contains(stdout, "inlined 0.0%") || !strings.Contains(stdout, "local steals") {
		t.Errorf("text summary: exit %d, %q", code, stdout)
	}
}

func TestRTWritesPNG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "img.png")
	code, stdout, stderr := run(t, "run", "rt", "-w", "64", "-h", "48", "--samples", "1", "-o", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(stdout), &obj); err != nil {
		t.Fatal(err)
	}
	if obj["verified"] != true || obj["result"].(map[string]any)["file"] != out {
		t.Errorf("rt result: %v", obj)
	}
}

func TestTimelineAndProfile(t *testing.T) {
	dir := t.TempDir()
	tl := filepath.Join(dir, "trace.json")
	code, _, stderr := run(t, "run", "ep", "--class", "S", "--timeline", tl, "--profile", "cpu", "--profile-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var trace struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			Dur  float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	b, err := os.ReadFile(tl)
	if err != nil || json.Unmarshal(b, &trace) != nil {
		t.Fatalf("timeline unreadable: %v", err)
	}
	tasks := 0
	for _, e := range trace.TraceEvents {
		if e.Ph == "X" && e.Name == "ep.range" && e.Dur > 0 {
			tasks++
		}
	}
	if tasks == 0 {
		t.Errorf("the timeline holds no task: %d events", len(trace.TraceEvents))
	}
	if _, err := os.Stat(filepath.Join(dir, "cpu.pprof")); err != nil {
		t.Errorf("no CPU profile: %v", err)
	}
	if code, _, stderr := run(t, "run", "fib", "--profile", "heap"); code != 2 || !strings.Contains(stderr, "want cpu, mem") {
		t.Errorf("bad --profile: exit %d, %s", code, stderr)
	}
}

// benchCells runs tsys bench with --json and returns its cells, of which
// there must be want.
func benchCells(t *testing.T, want int, args ...string) []bench.Summary {
	t.Helper()
	code, stdout, stderr := run(t, append([]string{"bench"}, append(args, "--json", "--warmup", "0", "--out", t.TempDir())...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Results []bench.Summary `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != want {
		t.Fatalf("%d cells, want %d", len(out.Results), want)
	}
	return out.Results
}

func TestBenchMatrix(t *testing.T) {
	for _, c := range benchCells(t, 6, "--apps", "fib -n 20;ep --class S", "--configs", "serial,1x1,1x2", "--reps", "1") {
		if !c.Verified || c.Median <= 0 || c.Config == "1x2" && c.Speedup == 0 {
			t.Errorf("cell %+v", c)
		}
	}
	// The text table shows each cell's spread next to its median, and
	// nothing of a progress bar reaches a pipe.
	dir := t.TempDir()
	code, stdout, stderr := run(t, "bench", "--apps", "fib -n 15", "--configs", "1x1", "--reps", "2", "--out", dir)
	if code != 0 || !strings.Contains(stdout, "min-max s") || !regexp.MustCompile(`\d\.\d{3}-\d\.\d{3}`).MatchString(stdout) {
		t.Errorf("text table without the spread: exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stderr, "\r") || strings.Contains(stderr, "left;") {
		t.Errorf("a progress bar in a pipe: %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, bench.SummaryMD)); err != nil {
		t.Errorf("no summary in the output folder: %v", err)
	}
	// A run over its limit fails its cell, not the benchmark: the folder
	// is written, marking it, and the exit status says so.
	failed := t.TempDir()
	code, _, stderr = run(t, "bench", "--apps", "fib -n 15", "--configs", "serial,1x1", "--reps", "1", "--warmup", "0", "--run-timeout", "1ns", "--out", failed)
	md, _ := os.ReadFile(filepath.Join(failed, bench.SummaryMD))
	if code != 1 || !strings.Contains(stderr, "runs failed, marked in") || !strings.Contains(string(md), "failed**") {
		t.Errorf("a cell over its --run-timeout: exit %d, stderr %q, summary:\n%s", code, stderr, md)
	}
	for _, bad := range [][]string{{"--configs", "3y2"}, {"--apps", "nope"}, {"--reps", "0"}, {"--configs", "1x1:psychic"},
		{"--nodes", "0"}, {"--scheds", "psychic"}, {"--loads", "5=0.5"}, {"--preset", "nope"}, {"--preset"}, {"--run-timeout", "0s"}} {
		if code, _, _ := run(t, append([]string{"bench", "--out", dir}, bad...)...); code != 2 {
			t.Errorf("bench %v: exit %d, want 2", bad, code)
		}
	}
}

// TestBenchChecksEachRun: bench checks a run's command line before the
// matrix starts (run --dry-run) and names what is wrong with it as the
// run would, without the run's usage or warnings around it.
func TestBenchChecksEachRun(t *testing.T) {
	if err := checkRun([]string{"fib", "-n", "30", "--workers", "1"}); err != nil {
		t.Errorf("a good run: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fib", "-n", "-3"}, "fib: -n -3 out of range: want 0..92"},
		{[]string{"fib", "--bogus"}, "flag provided but not defined: -bogus"},
		// A warning (a mover on one node) comes before the error.
		{[]string{"fib", "--sched", "balance", "--timeline", "/nonexistent/t.json"}, "--timeline: "},
	} {
		err := checkRun(c.args)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "usage:") || strings.Contains(err.Error(), "tsys: ") {
			t.Errorf("run %v: %v; want the run's error alone, beginning %q", c.args, err, c.want)
		}
	}
	code, _, stderr := run(t, "bench", "--apps", "fib -n -3", "--configs", "1x1", "--reps", "1", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, `bench job "fib -n -3" under 1x1`) || !strings.Contains(stderr, "out of range") {
		t.Errorf("bench of a bad run: exit %d, %q; want 2, naming the job and its error", code, stderr)
	}
}

// TestSim: tsys sim runs the real policies on simulated nodes, prints one
// JSON object for one run, writes a sweep's CSV and plots, and refuses bad
// parameters by name with exit code 2.
func TestSim(t *testing.T) {
	code, stdout, stderr := run(t, "sim", "--nodes", "4", "--workers", "2", "--sched", "fishing", "--app", "ep:leaves=256", "--json")
	var r struct {
		Makespan   float64 `json:"makespan_ns"`
		LowerBound float64 `json:"lower_bound_ns"`
		Efficiency float64 `json:"efficiency"`
		Tasks      int     `json:"tasks"`
		Moved      int     `json:"tasks_moved"`
		PerNode    []any   `json:"per_node"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	if r.Makespan < r.LowerBound || r.Efficiency <= 0 || r.Efficiency > 1 || r.Tasks != 511 || r.Moved == 0 || len(r.PerNode) != 4 {
		t.Errorf("result %+v", r)
	}
	dir := t.TempDir()
	code, stdout, stderr = run(t, "sim", "--nodes", "1,8", "--sched", "fishing;balance", "--app", "flat:iters=200", "--out", dir)
	if code != 0 || !strings.Contains(stdout, "balance") {
		t.Fatalf("sweep: exit %d: %s%s", code, stdout, stderr)
	}
	f, err := os.Open(filepath.Join(dir, "sim.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 1+4 {
		t.Fatalf("sim.csv: %d rows, %v", len(rows), err)
	}
	// Where the time went: working, messages and idle add up to the
	// whole, stealing is part of idle.
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	for _, row := range rows[1:] {
		share := func(name string) float64 {
			i, ok := col[name]
			if !ok {
				t.Fatalf("sim.csv has no column %s: %v", name, rows[0])
			}
			v, err := strconv.ParseFloat(row[i], 64)
			if err != nil {
				t.Fatalf("sim.csv %s %q: %v", name, row[i], err)
			}
			return v
		}
		work, msgs, idle, steal := share("work_share"), share("message_share"), share("idle_share"), share("steal_share")
		if sum := work + msgs + idle; sum < 0.999 || sum > 1.001 || steal < 0 || steal > idle+0.0001 {
			t.Errorf("sim.csv %v: working %v, messages %v, idle %v (stealing %v)", row[:4], work, msgs, idle, steal)
		}
	}
	for _, name := range []string{"sim.png", "time.png"} {
		if f, err := os.Open(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		} else {
			if _, err := png.DecodeConfig(f); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			f.Close()
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--latency", "-1ms"}, "--latency"},
		{[]string{"--spawn", "-1ns"}, "--spawn"},
		{[]string{"--nodes", "0"}, "--nodes"},
		{[]string{"--app", "psychic"}, "unknown workload"},
		{[]string{"--sched", "psychic"}, "unknown scheduler"},
		{[]string{"--speed", "1,0"}, "--speed"},
		{[]string{"--hog", "9=0.5"}, "--hog"},
		{[]string{"--app", "ep:leaves=-3"}, "leaves"},
		{[]string{"--fail", "0@1ms"}, "node 0 holds the root"},
		{[]string{"--fail", "soon"}, "NODE@TIME"},
		{[]string{"--model", "/nonexistent/model.json"}, "--model"},
	} {
		code, _, stderr := run(t, append([]string{"sim", "--nodes", "4"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("sim %v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRecordAndReplayTree: a run records its task tree, and the simulator
// replays it with every task and the work the run measured.
func TestRecordAndReplayTree(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "uts.tree")
	code, stdout, stderr := run(t, "run", "uts", "--tree", "T5", "--workers", "2", "--record-tree", tree, "--json")
	var rep struct {
		Stats    map[string]float64 `json:"stats"`
		WorkSpan map[string]float64 `json:"workspan"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || rep.WorkSpan == nil {
		t.Fatalf("record: exit %d: %s%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, "sim", "--app", "replay:file="+tree, "--nodes", "2", "--json")
	var r struct {
		Tasks float64 `json:"tasks"`
		Work  float64 `json:"work_ns"`
		Span  float64 `json:"span_ns"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil {
		t.Fatalf("replay: exit %d: %s%s", code, stdout, stderr)
	}
	if r.Tasks != rep.Stats["tasks_run"] {
		t.Errorf("replayed %v tasks, the run ran %v", r.Tasks, rep.Stats["tasks_run"])
	}
	// The recorder counts the same strands as work_ns.
	if d := r.Work/1e9 - rep.WorkSpan["work_seconds"]; d > 0.001 || d < -0.001 {
		t.Errorf("replayed work %v s, the run's %v s", r.Work/1e9, rep.WorkSpan["work_seconds"])
	}
	if r.Span <= 0 || r.Span >= r.Work {
		t.Errorf("replayed span %v of work %v", r.Span, r.Work)
	}
	if code, _, stderr := run(t, "run", "fib", "--record-tree", tree, "--nodes", "2"); code != 2 || !strings.Contains(stderr, "one node") {
		t.Errorf("--record-tree with --nodes: exit %d, %s", code, stderr)
	}
}
