package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// benchConfig is one column of the matrix: "serial", or NODESxWORKERS with
// an optional scheduler, e.g. "1x2", "2x1:fishing:load".
type benchConfig struct {
	label   string
	serial  bool
	nodes   int
	workers int
	sched   string
}

func parseBenchConfig(s string) (benchConfig, error) {
	if s == "serial" {
		return benchConfig{label: s, serial: true, nodes: 1, workers: 1}, nil
	}
	shape, sched, _ := strings.Cut(s, ":")
	n, w, ok := strings.Cut(shape, "x")
	nodes, err1 := strconv.Atoi(n)
	workers, err2 := strconv.Atoi(w)
	if !ok || err1 != nil || err2 != nil || nodes < 1 || workers < 1 {
		return benchConfig{}, fmt.Errorf("bench config %q: want serial or NODESxWORKERS[:SCHED], e.g. 2x1:fishing:load", s)
	}
	if sched != "" {
		if _, err := parseScheduler(sched); err != nil {
			return benchConfig{}, fmt.Errorf("bench config %q: %w", s, err)
		}
	}
	return benchConfig{label: s, nodes: nodes, workers: workers, sched: sched}, nil
}

func (c benchConfig) args() []string {
	if c.serial {
		return []string{"--serial"}
	}
	a := []string{"--nodes", strconv.Itoa(c.nodes), "--workers", strconv.Itoa(c.workers)}
	if c.sched != "" {
		a = append(a, "--sched", c.sched)
	}
	return a
}

// benchResult is one cell: an app under one config, over the repetitions.
type benchResult struct {
	App        string    `json:"app"`
	Config     string    `json:"config"`
	Seconds    []float64 `json:"seconds"`
	Median     float64   `json:"median_seconds"`
	Speedup    float64   `json:"speedup_vs_1x1,omitempty"`
	Efficiency float64   `json:"efficiency,omitempty"`
	VsSerial   float64   `json:"speedup_vs_serial,omitempty"`
	TasksSent  float64   `json:"median_tasks_sent"`
	BytesSent  float64   `json:"median_bytes_sent"`
	StatusSent float64   `json:"median_status_messages"`
	IdleShare  float64   `json:"median_idle_share"`
	// the samples behind the medians
	tasks, bytes, status, idle []float64
	Verified                   bool `json:"verified"`
}

var defaultBenchApps = "ep --class W;uts --tree T1;uts --tree T3;rt --verify=false;nqueens -n 13;fib -n 32"

// splitConfigs splits --configs at the commas that start a new config
// (serial, or NODESxWORKERS): a scheduler's own options are comma-separated
// too, as in 2x1:fishing:random,tasks=8.
func splitConfigs(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if len(out) > 0 && !startsConfig(item) {
			out[len(out)-1] += "," + item
			continue
		}
		out = append(out, item)
	}
	return out
}

// startsConfig: item is serial or begins with NODESxWORKERS.
func startsConfig(item string) bool {
	head, _, _ := strings.Cut(item, ":")
	n, w, ok := strings.Cut(head, "x")
	isNum := func(s string) bool { _, err := strconv.Atoi(s); return err == nil }
	return item == "serial" || (ok && isNum(n) && isNum(w))
}

func benchCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tsys bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	appsFlag := fs.String("apps", defaultBenchApps, "jobs separated by ';', each an app and its flags")
	configsFlag := fs.String("configs", "serial,1x1,1x2,2x1:fishing:random,2x1:fishing:load", "comma-separated configs: serial or NODESxWORKERS[:SCHED]")
	reps := fs.Int("reps", 5, "repetitions of each cell (the median is reported)")
	asJSON := fs.Bool("json", false, "print the results as one JSON object")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *reps < 1 {
		return usagef("--reps %d: want at least 1", *reps)
	}
	var configs []benchConfig
	for _, s := range splitConfigs(*configsFlag) {
		c, err := parseBenchConfig(s)
		if err != nil {
			return usageError{err.Error()}
		}
		configs = append(configs, c)
	}
	var jobs [][]string
	for _, s := range strings.Split(*appsFlag, ";") {
		if f := strings.Fields(s); len(f) > 0 {
			// Check the job's flags with every config now rather than
			// after an hour.
			for _, c := range configs {
				if _, err := parseRun(append(slices.Clone(f), c.args()...), io.Discard); err != nil {
					return usagef("bench job %q with config %s: %v", s, c.label, err)
				}
			}
			jobs = append(jobs, f)
		}
	}
	exe, err := selfPath()
	if err != nil {
		return err
	}
	results := make([][]benchResult, len(jobs))
	for i, job := range jobs {
		results[i] = make([]benchResult, len(configs))
		for k, c := range configs {
			results[i][k] = benchResult{App: strings.Join(job, " "), Config: c.label, Verified: true}
		}
	}
	// Repetitions outermost: noise then falls on every cell alike.
	for r := 0; r < *reps; r++ {
		for i, job := range jobs {
			for k, c := range configs {
				obj, err := runOnce(exe, append(slices.Clone(job), c.args()...))
				if err != nil {
					return fmt.Errorf("bench %s under %s: %w", strings.Join(job, " "), c.label, err)
				}
				cell := &results[i][k]
				cell.Seconds = append(cell.Seconds, obj.WallSeconds)
				cell.Verified = cell.Verified && obj.Verified
				cell.tasks = append(cell.tasks, float64(obj.Stats.TasksSent))
				cell.bytes = append(cell.bytes, float64(obj.Stats.BytesSent))
				cell.status = append(cell.status, float64(obj.Stats.StatusSent))
				cell.idle = append(cell.idle, idleShare(obj))
				fmt.Fprintf(stderr, "\rrep %d/%d: %-30s %-22s %.3f s   ", r+1, *reps, cell.App, c.label, obj.WallSeconds)
			}
		}
	}
	fmt.Fprintln(stderr)
	for i := range jobs {
		var base, serial float64
		for k, c := range configs {
			cell := &results[i][k]
			cell.Median = median(cell.Seconds)
			cell.TasksSent, cell.BytesSent = median(cell.tasks), median(cell.bytes)
			cell.StatusSent, cell.IdleShare = median(cell.status), median(cell.idle)
			switch {
			case c.serial:
				serial = cell.Median
			case c.nodes == 1 && c.workers == 1:
				base = cell.Median
			}
		}
		for k, c := range configs {
			cell := &results[i][k]
			if c.serial {
				continue
			}
			if base > 0 {
				cell.Speedup = base / cell.Median
				cell.Efficiency = cell.Speedup / float64(c.nodes*c.workers)
			}
			if serial > 0 {
				cell.VsSerial = serial / cell.Median
			}
		}
	}
	if *asJSON {
		var flat []benchResult
		for _, row := range results {
			flat = append(flat, row...)
		}
		return json.NewEncoder(stdout).Encode(map[string]any{"reps": *reps, "results": flat})
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	// The spread of the samples is printed next to the median: on a shared
	// machine it is what tells a real difference between two cells from
	// noise.
	fmt.Fprintln(tw, "app\tconfig\tmedian s\tmin-max s\tvs 1x1\tefficiency\tvs serial\ttasks sent\tbytes sent\tstatus msgs\tidle\tverified\t")
	for _, row := range results {
		for _, c := range row {
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f-%.3f\t%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f%%\t%v\t\n", c.App, c.Config, c.Median,
				slices.Min(c.Seconds), slices.Max(c.Seconds),
				ratio(c.Speedup), ratio(c.Efficiency), ratio(c.VsSerial), c.TasksSent, c.BytesSent, c.StatusSent, 100*c.IdleShare, c.Verified)
		}
	}
	return tw.Flush()
}

// idleShare is the share of the run's worker time spent idle: the idle
// time of all workers over wall time x workers x nodes.
func idleShare(r *report) float64 {
	total := r.WallSeconds * float64(max(r.Workers, 1)*max(r.Nodes, 1))
	if total <= 0 {
		return 0
	}
	return min(1, float64(r.Stats.IdleNanos)/1e9/total)
}

func ratio(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// runOnce runs `tsys run ARGS --json` and decodes its report.
func runOnce(exe string, args []string) (*report, error) {
	cmd := exec.Command(exe, append(append([]string{"run"}, args...), "--json")...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	var r report
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("decoding the report: %w", err)
	}
	return &r, nil
}
