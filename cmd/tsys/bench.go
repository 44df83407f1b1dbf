package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"github.com/tsys-go/tsys/cli"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tsys-go/tsys/bench"
	"github.com/tsys-go/tsys/internal/cliflags"
	"github.com/tsys-go/tsys/internal/report"
	"github.com/tsys-go/tsys/internal/schedspec"
	"github.com/tsys-go/tsys/internal/statusline"
)

// benchFlags are the flags of tsys bench.
type benchFlags struct {
	apps, configs, nodes, workers, scheds, loads string
	serial                                       bool
	reps, warmup                                 int
	out, readme                                  string
	json                                         bool
	runTimeout                                   time.Duration
}

func (f *benchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.apps, "apps", "ep --class W;uts --tree T1;uts --tree T3;rt --verify=false;nqueens -n 13;fib -n 32", "jobs separated by ';', each an app and its flags")
	fs.StringVar(&f.configs, "configs", "", "comma-separated configs, serial or NODESxWORKERS[:SCHED], instead of --nodes x --workers x --scheds")
	fs.StringVar(&f.nodes, "nodes", "1,2,3", "node counts, comma-separated (1 node runs once, without a cluster scheduler)")
	fs.StringVar(&f.workers, "workers", "1", "workers per node, comma-separated")
	fs.StringVar(&f.scheds, "scheds", strings.Join(schedspec.Sweep(), ";"), schedspec.Help("schedulers for several nodes, separated by ';':"))
	fs.StringVar(&f.loads, "loads", "none", "load scenarios separated by ';': none, pin (nodes pinned to their CPUs) or a --hog spec such as 1=0.5:2s/2s (pinned)")
	fs.BoolVar(&f.serial, "serial", true, "run the plain serial version too, for speedups against it")
	fs.IntVar(&f.reps, "reps", 5, "repetitions of each cell (medians are reported)")
	fs.IntVar(&f.warmup, "warmup", 1, "unmeasured runs of each job first")
	fs.DurationVar(&f.runTimeout, "run-timeout", 10*time.Minute, "end a run that has not finished within this long, marking its cell (each run's --timeout)")
	fs.StringVar(&f.out, "out", "", "folder for the CSV, the summary and the plots (default tsys-bench-DATE-TIME)")
	fs.StringVar(&f.readme, "readme", "", "Markdown file whose generated block to rewrite with the summary")
	fs.BoolVar(&f.json, "json", false, "print the summaries as one JSON object")
}

// matrix builds the benchmark the flags describe, and checks every run's
// command line now rather than after an hour.
func (f *benchFlags) matrix() (bench.Matrix, error) {
	if f.reps < 1 {
		return bench.Matrix{}, cli.Usagef("--reps %d: want at least 1", f.reps)
	}
	if f.warmup < 0 {
		return bench.Matrix{}, cli.Usagef("--warmup %d: want 0 or more", f.warmup)
	}
	if f.runTimeout <= 0 {
		return bench.Matrix{}, cli.Usagef("--run-timeout %v: want a duration above 0, e.g. 10m", f.runTimeout)
	}
	m := bench.Matrix{Jobs: bench.ParseJobs(f.apps), Loads: bench.ParseLoads(f.loads), Reps: f.reps, Warmup: f.warmup}
	if len(m.Jobs) == 0 {
		return m, cli.Usagef("--apps %q: want at least one job", f.apps)
	}
	var err error
	if m.Configs, err = f.configList(); err != nil {
		return m, err
	}
	cells, _ := m.Cells()
	for _, c := range cells {
		if err := checkRun(c.Args()); err != nil {
			return m, cli.Usagef("bench job %q under %s, load %s: %v", c.Job, c.Config, c.Load, err)
		}
	}
	if len(cells) == 0 {
		return m, cli.Usagef("no job fits any config under the loads given")
	}
	return m, nil
}

// configList is --configs, or serial and --nodes x --workers x --scheds.
func (f *benchFlags) configList() ([]bench.Config, error) {
	var out []bench.Config
	if f.configs != "" {
		for _, s := range bench.SplitConfigs(f.configs) {
			c, err := bench.ParseConfig(s)
			if err != nil {
				return nil, cli.Usagef("%s", err.Error())
			}
			out = append(out, c)
		}
		return out, nil
	}
	nodes, err := intList("--nodes", f.nodes)
	if err != nil {
		return nil, err
	}
	workers, err := intList("--workers", f.workers)
	if err != nil {
		return nil, err
	}
	if f.serial {
		out = append(out, bench.Config{Serial: true, Nodes: 1, Workers: 1})
	}
	scheds := strings.Split(f.scheds, ";")
	for _, w := range workers {
		for _, n := range nodes {
			if n == 1 {
				out = append(out, bench.Config{Nodes: 1, Workers: w})
				continue
			}
			for _, s := range scheds {
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, bench.Config{Nodes: n, Workers: w, Sched: s})
				}
			}
		}
	}
	return out, nil
}

func intList(flagName, s string) ([]int, error) {
	var out []int
	for _, item := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil || n < 1 {
			return nil, cli.Usagef("%s %q: want positive whole numbers separated by commas, e.g. 1,2,4", flagName, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func benchCommand(args []string, stdout, stderr io.Writer) error {
	presets, rest, err := splitPresets(args)
	if err != nil {
		return err
	}
	if len(presets) == 0 {
		return benchOnce("custom", "tsys bench "+shellJoin(args), args, stdout, stderr)
	}
	for _, p := range presets {
		command := "tsys bench --preset " + p.Name + " " + shellJoin(rest)
		if err := benchOnce(p.Name, strings.TrimSpace(command), append(append([]string{}, p.Flags...), rest...), stdout, stderr); err != nil {
			return fmt.Errorf("preset %s: %w", p.Name, err)
		}
	}
	return nil
}

// splitPresets takes --preset NAME[,NAME...] out of args.
func splitPresets(args []string) ([]bench.Preset, []string, error) {
	var names, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--preset" || a == "-preset":
			if i+1 == len(args) {
				return nil, nil, cli.Usagef("--preset needs a name")
			}
			names = append(names, strings.Split(args[i+1], ",")...)
			i++
		case strings.HasPrefix(a, "--preset=") || strings.HasPrefix(a, "-preset="):
			_, v, _ := strings.Cut(a, "=")
			names = append(names, strings.Split(v, ",")...)
		default:
			rest = append(rest, a)
		}
	}
	var out []bench.Preset
	for _, n := range names {
		p, err := bench.LookupPreset(n)
		if err != nil {
			return nil, nil, cli.Usagef("%s", err.Error())
		}
		out = append(out, p)
	}
	return out, rest, nil
}

// benchOnce runs one benchmark and writes its folder.
func benchOnce(block, command string, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("tsys bench", stderr)
	var f benchFlags
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tsys bench [--preset NAME] [flags]\n\npresets:")
		for _, p := range bench.Presets {
			fmt.Fprintf(stderr, "  %-8s %s\n", p.Name, p.About)
		}
		fmt.Fprintln(stderr, "\nflags:")
		cliflags.Write(stderr, fs)
	}
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	m, err := f.matrix()
	if err != nil {
		return err
	}
	if f.out == "" {
		f.out = "tsys-bench-" + time.Now().Format("20060102-150405")
	}
	exe, err := selfPath()
	if err != nil {
		return err
	}
	var progress bench.Progress
	if statusline.IsTerminal(stderr) {
		progress = bench.ProgressBar(stderr, time.Now)
	}
	res := bench.Run(m, func(args []string) (*report.Report, error) { return runOnce(exe, args, f.runTimeout) }, progress)
	sums, err := bench.WriteFolder(f.out, res, command)
	if err != nil {
		return err
	}
	if f.readme != "" {
		if err := bench.UpdateReadme(f.readme, block, f.out, res, sums, command); err != nil {
			return err
		}
	}
	if f.json {
		err = bench.WriteJSON(stdout, res, sums)
	} else {
		fmt.Fprint(stdout, bench.SummaryTable(sums))
		fmt.Fprintf(stdout, "\nwrote %s: %s, %s, %s, %s and the plots\n", f.out, bench.SummaryMD, bench.RunsCSV, bench.WorkersCSV, bench.GoBench)
	}
	if err == nil && len(res.Failures) > 0 {
		// After the folder: what ran is kept, and a script still sees the
		// failure in the exit status.
		first := res.Failures[0]
		err = fmt.Errorf("%d runs failed, marked in %s; the first, %s: %s", len(res.Failures), f.out, res.Cells[first.Cell], first.Err)
	}
	return err
}

// shellJoin quotes args for a command line a person can paste.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " ;'\"$|&<>*?()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// runOnce runs `tsys run ARGS --json --timeout LIMIT` and decodes its
// report. The process is killed a minute past its limit, in case it
// cannot even end itself.
func runOnce(exe string, args []string, limit time.Duration) (*report.Report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append(append([]string{"run"}, args...), "--json", "--timeout", limit.String())...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	return report.Decode(out)
}
