package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tsys-go/tsys/advise"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/calibrate"
	"github.com/tsys-go/tsys/internal/median"
	"github.com/tsys-go/tsys/internal/report"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/schedspec"
	"github.com/tsys-go/tsys/tsys"
)

// `advise PROGRAM [program flags] [advise flags]` calibrates on this
// machine and says how to run PROGRAM on a cluster of nodes like it:
//
//  1. For each grain the program's Grain flag takes (or, for a program
//     without one, once), a run on one worker records the task tree with
//     inlining off (sched.TreeRecorder), and a run without the recorder
//     measures T1; the tree's costs are scaled to T1 (the recorder's
//     bookkeeping inflates each frame alike) and folded below a message's
//     cost (advise.Fold).
//  2. The transport's ping-pong, a policy tick, gossip and a spawn are
//     measured (internal/calibrate), unless the flags give them.
//  3. Package advise replays every tree in the simulator on every node
//     count under every scheduler, and picks.

// adviseFlags are advise's own flags, beside the program's.
type adviseFlags struct {
	workers    int
	nodes      string
	sched      string
	grains     string
	inlines    string
	efficiency float64
	latency    time.Duration
	speed      float64
	startup    time.Duration
	perByte    float64
	maxTasks   int
	reps       int
	json       bool
}

// adviseNodes are the node counts advise weighs unless told others.
const adviseNodes = "1,2,4,8,16,32,64"

// adviseInlines are the inlining thresholds advise weighs for a program
// without a grain flag.
const adviseInlines = "load:1,load:2,load:4,load:8,load:16,load:32"

// adviseMaxTasks bounds the tree a calibration run records, and so the
// recorder's memory, to a few GiB.
const adviseMaxTasks = 40_000_000

func (f *adviseFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "workers a node of the cluster has")
	fs.StringVar(&f.nodes, "nodes", adviseNodes, "node counts to weigh, comma-separated (one count: what to run on that many)")
	fs.StringVar(&f.sched, "sched", "fishing;balance", "schedulers to weigh, separated by ';' (as run --sched)")
	fs.StringVar(&f.grains, "grains", "", "values of the program's grain flag to weigh, comma-separated (default: the program's own list)")
	fs.StringVar(&f.inlines, "inline", "", "inlining policies to weigh, comma-separated (default: the program's own for a program with a grain flag, else "+adviseInlines+")")
	fs.Float64Var(&f.efficiency, "efficiency", advise.DefaultEfficiency, "least predicted efficiency at which more nodes are worth having")
	fs.DurationVar(&f.latency, "latency", 0, "the cluster network's one-way delay beyond loopback's (loopback's own is measured)")
	fs.Float64Var(&f.speed, "speed", 1, "a node's worker speed against this machine's one worker, on which T1 is measured (0.5: half as fast, as when two nodes share a core)")
	fs.DurationVar(&f.startup, "startup", 0, "a message's one-way start-up cost, instead of measuring it (with --per-byte)")
	fs.Float64Var(&f.perByte, "per-byte", 0, "a message's cost per byte in ns, instead of measuring it (with --startup)")
	fs.IntVar(&f.maxTasks, "max-tasks", adviseMaxTasks, "most tasks a calibration run may spawn with inlining off (each costs the recorder about 100 bytes)")
	fs.IntVar(&f.reps, "reps", 1, "runs without the recorder that time T1 at each grain (their median counts)")
	fs.BoolVar(&f.json, "json", false, "print exactly one JSON object on stdout")
}

// adviseConfig is a parsed advise command line.
type adviseConfig struct {
	app     Program
	args    []string // the program's own flags as given
	flags   adviseFlags
	nodes   []int
	scheds  []string
	grains  []string
	inlines []inline.Policy
}

func (c *command) parseAdvise(args []string, stderr io.Writer) (*adviseConfig, error) {
	if len(args) == 0 || isHelpFlag(args[0]) {
		fmt.Fprintf(stderr, "usage: %s advise PROGRAM [program flags] [advise flags]\n\nprograms:\n", c.name)
		c.writePrograms(stderr)
		fmt.Fprint(stderr, "\nadvise flags:\n")
		fs := flag.NewFlagSet("advise", flag.ContinueOnError)
		new(adviseFlags).register(fs)
		writeFlags(stderr, fs)
		if len(args) == 0 {
			return nil, Usagef("advise needs a program: %s advise PROGRAM, with PROGRAM one of those above", c.name)
		}
		return nil, flag.ErrHelp
	}
	app, err := c.lookup(args[0])
	if err != nil {
		return nil, usageError{err.Error()}
	}
	cfg := &adviseConfig{app: app}
	appFS := flag.NewFlagSet(app.Name, flag.ContinueOnError)
	makeJob := app.jobMaker(appFS)
	own := flag.NewFlagSet("advise", flag.ContinueOnError)
	cfg.flags.register(own)
	var clash []string
	own.VisitAll(func(f *flag.Flag) {
		if appFS.Lookup(f.Name) != nil {
			clash = append(clash, "--"+f.Name)
		}
	})
	if len(clash) > 0 {
		return nil, Usagef("%s defines %s, which advise uses for itself: rename the program's flag", app.Name, strings.Join(clash, ", "))
	}
	fs := NewFlagSet(c.name+" advise "+app.Name, stderr)
	mergeFlags(fs, appFS)
	mergeFlags(fs, own)
	if err := ParseFlags(fs, args[1:]); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, Usagef("unexpected argument %q after the flags of %s", fs.Arg(0), app.Name)
	}
	if _, err := makeJob(); err != nil {
		return nil, usageError{err.Error()}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		given[f.Name] = true
		if appFS.Lookup(f.Name) != nil {
			cfg.args = append(cfg.args, "--"+f.Name+"="+f.Value.String())
		}
	})
	f := &cfg.flags
	switch {
	case f.workers < 1:
		return nil, Usagef("--workers %d: want at least 1 worker a node", f.workers)
	case f.efficiency <= 0 || f.efficiency > 1:
		return nil, Usagef("--efficiency %g: want a share above 0 and up to 1, e.g. 0.75", f.efficiency)
	case f.latency < 0:
		return nil, Usagef("--latency %v: want 0 or more", f.latency)
	case f.speed <= 0:
		return nil, Usagef("--speed %g: want more than 0 (1: as fast as this machine)", f.speed)
	case given["startup"] != given["per-byte"]:
		return nil, Usagef("--startup and --per-byte go together: give both to skip the ping-pong, or neither")
	case given["startup"] && (f.startup <= 0 || f.perByte < 0):
		return nil, Usagef("--startup %v, --per-byte %g: want a start-up cost above 0 and a cost per byte of 0 or more", f.startup, f.perByte)
	case f.maxTasks < 1:
		return nil, Usagef("--max-tasks %d: want at least 1", f.maxTasks)
	case f.reps < 1:
		return nil, Usagef("--reps %d: want at least 1", f.reps)
	}
	if cfg.nodes, err = nodeCounts(f.nodes); err != nil {
		return nil, err
	}
	for _, s := range strings.Split(f.sched, ";") {
		if s = strings.TrimSpace(s); s != "" {
			if _, err := schedspec.Parse(s); err != nil {
				return nil, usageError{"--sched: " + err.Error()}
			}
			cfg.scheds = append(cfg.scheds, s)
		}
	}
	if len(cfg.scheds) == 0 {
		return nil, Usagef("--sched %q: name at least one scheduler, e.g. fishing;balance", f.sched)
	}
	if err := cfg.options(appFS); err != nil {
		return nil, err
	}
	return cfg, nil
}

// nodeCounts reads --nodes.
func nodeCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, Usagef("--nodes %q: want node counts of 1 or more, comma-separated, e.g. %s", s, adviseNodes)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// options settles the grains and inlining policies to weigh.
func (cfg *adviseConfig) options(appFS *flag.FlagSet) error {
	f := &cfg.flags
	g := cfg.app.Grain
	switch {
	case f.grains != "" && g == nil:
		return Usagef("--grains: %s has no grain flag to tune (its Program has no Grain); weigh --inline policies instead", cfg.app.Name)
	case g != nil && appFS.Lookup(g.Flag) == nil:
		return fmt.Errorf("%s's Grain names --%s, which it does not define: fix the Program", cfg.app.Name, g.Flag)
	case g != nil:
		cfg.grains = g.Values
		if f.grains != "" {
			cfg.grains = strings.Split(f.grains, ",")
		}
		if slices.ContainsFunc(cfg.args, func(a string) bool { return strings.HasPrefix(a, "--"+g.Flag+"=") }) {
			return Usagef("--%s is what advise tunes for %s: leave it out, or weigh the values you want with --grains", g.Flag, cfg.app.Name)
		}
		for _, v := range cfg.grains {
			if _, err := cfg.job(v); err != nil {
				return err
			}
		}
	}
	inlines := f.inlines
	if inlines == "" {
		inlines = adviseInlines
		if g != nil {
			inlines = cfg.app.inline().String()
		}
	}
	for _, s := range strings.Split(inlines, ",") {
		p, err := inline.Parse(strings.TrimSpace(s))
		if err != nil {
			return usageError{"--inline: " + err.Error()}
		}
		cfg.inlines = append(cfg.inlines, p)
	}
	return nil
}

func (c *command) adviseCommand(args []string, stdout, stderr io.Writer) error {
	cfg, err := c.parseAdvise(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	m, err := cfg.calibrate(ctx, stderr)
	if err != nil {
		return err
	}
	opts, err := cfg.record(ctx, m.Startup, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "advise: simulating %d options on %d node counts under %d schedulers\n", len(opts), len(cfg.nodes), len(cfg.scheds))
	a, err := advise.Advise(m, opts, advise.Question{Nodes: cfg.nodes, Scheds: cfg.scheds, Efficiency: cfg.flags.efficiency})
	if err != nil {
		return fmt.Errorf("advise %s: %w", cfg.app.Name, err)
	}
	out := advise.Report{App: cfg.app.Name, Args: cfg.args, Workers: m.Workers, Machine: m, Advice: a, Command: cfg.command(c.name, a.Recommended, m.Workers)}
	if cfg.app.Grain != nil {
		out.GrainFlag = "--" + cfg.app.Grain.Flag
	}
	for _, o := range opts {
		out.Options = append(out.Options, advise.OptionReport{Grain: o.Grain, Inline: o.Inline.String(), T1Seconds: o.T1.Seconds(), Tasks: o.Shape.Tasks, Replayed: len(o.Tree.Parent)})
	}
	if cfg.flags.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	out.WriteText(stdout)
	return nil
}

// record runs the program once per grain to record its tree and time T1,
// and makes the options the advisor weighs, their trees folded below
// fold, a message's cost.
func (cfg *adviseConfig) record(ctx context.Context, fold time.Duration, stderr io.Writer) ([]advise.Option, error) {
	grains := cfg.grains
	if len(grains) == 0 {
		grains = []string{""}
	}
	var opts []advise.Option
	for _, g := range grains {
		job, err := cfg.job(g)
		if err != nil {
			return nil, err
		}
		what := cfg.describe(g)
		fmt.Fprintf(stderr, "advise: recording %s on one worker\n", what)
		tree, err := recordTree(ctx, job, cfg.flags.maxTasks)
		if err != nil {
			return nil, fmt.Errorf("advise: cannot record %s: %w", what, err)
		}
		// The first policy times T1 for them all: on one worker a policy
		// changes how many spawns are tasks, a fraction of T1 that the
		// simulator charges as Model.Spawn.
		t1, err := timeT1(ctx, job, cfg.inlines[0], cfg.flags.reps)
		if err != nil {
			return nil, fmt.Errorf("advise: timing %s on one worker: %w", what, err)
		}
		scaled, err := advise.Scale(tree, t1)
		if err != nil {
			return nil, fmt.Errorf("advise: %s: %w", what, err)
		}
		folded, shape := advise.Fold(scaled, fold), advise.Shape(scaled)
		for _, p := range cfg.inlines {
			opts = append(opts, advise.Option{Grain: g, Inline: p, Tree: folded, T1: t1, Shape: shape})
		}
	}
	return opts, nil
}

// job makes the program's job with its grain flag at g ("": as given).
func (cfg *adviseConfig) job(g string) (Job, error) {
	fs := flag.NewFlagSet(cfg.app.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	makeJob := cfg.app.jobMaker(fs)
	args := slices.Clone(cfg.args)
	if g != "" {
		args = append(args, "--"+cfg.app.Grain.Flag+"="+g)
	}
	if err := fs.Parse(args); err != nil {
		return nil, Usagef("--grains: %s", err)
	}
	job, err := makeJob()
	if err != nil {
		return nil, usageError{"--grains: " + err.Error()}
	}
	return job, nil
}

func (cfg *adviseConfig) describe(g string) string {
	s := strings.TrimSpace(cfg.app.Name + " " + strings.Join(cfg.args, " "))
	if g != "" {
		s += " --" + cfg.app.Grain.Flag + "=" + g
	}
	return s
}

// recordTree runs job on one worker with every spawn a task and returns
// its tree.
func recordTree(ctx context.Context, job Job, limit int) (report.Tree, error) {
	rt := tsys.New(tsys.Workers(1), tsys.MeasureWorkSpan())
	rec := sched.NewTreeRecorder()
	rec.Limit = limit
	rt.Pool().SetTreeRecorder(rec)
	res, _, err := job.Run(ctx, rt)
	if err != nil {
		return report.Tree{}, err
	}
	if rec.Overflowed() {
		return report.Tree{}, fmt.Errorf("it spawns more than %d tasks with inlining off, more than the recorder keeps (--max-tasks): advise on a smaller instance of it, whose grain and scheduler carry over, or raise --max-tasks (about 100 bytes of memory a task)", limit)
	}
	if _, err := verify(job, res); err != nil {
		return report.Tree{}, fmt.Errorf("wrong answer: %w", err)
	}
	return report.Tree{Parent: rec.Parent, WorkNs: rec.WorkNs}, nil
}

// timeT1 is the median time of reps runs of job on one worker under pol.
func timeT1(ctx context.Context, job Job, pol inline.Policy, reps int) (time.Duration, error) {
	rt := tsys.New(tsys.Workers(1), tsys.Inline(pol))
	var times []time.Duration
	for range reps {
		start := time.Now()
		res, _, err := job.Run(ctx, rt)
		if err != nil {
			return 0, err
		}
		times = append(times, time.Since(start))
		if _, err := verify(job, res); err != nil {
			return 0, fmt.Errorf("wrong answer: %w", err)
		}
	}
	return median.Of(times), nil
}

// command is the run command line that follows the advice.
func (cfg *adviseConfig) command(prog string, p advise.Prediction, workers int) string {
	parts := []string{prog, "run", cfg.app.Name}
	parts = append(parts, cfg.args...)
	if p.Grain != "" {
		parts = append(parts, "--"+cfg.app.Grain.Flag+"="+p.Grain)
	}
	parts = append(parts, "--inline="+p.Inline, "--workers="+strconv.Itoa(workers))
	if p.Nodes > 1 {
		parts = append(parts, "--nodes="+strconv.Itoa(p.Nodes), "--sched="+p.Scheduler)
	}
	return strings.Join(parts, " ")
}

// measureCosts is calibrate.Measure, which a test replaces to see a
// calibration fail.
var measureCosts = calibrate.Measure

// calibrate measures this machine, or takes what the flags give.
func (cfg *adviseConfig) calibrate(ctx context.Context, stderr io.Writer) (advise.Machine, error) {
	f := &cfg.flags
	o := calibrate.Options{Nodes: cfg.nodes[len(cfg.nodes)-1]}
	if f.startup > 0 { // given, with --per-byte (parseAdvise)
		o.Link = &calibrate.Link{Startup: f.startup, PerByte: calibrate.NsPerByte(f.perByte)}
	}
	fmt.Fprintln(stderr, "advise: calibrating: messages over the transport, a policy tick, gossip, a spawn")
	costs, err := measureCosts(ctx, o)
	if err != nil {
		return advise.Machine{}, fmt.Errorf("advise: calibration failed: %w", err)
	}
	m := costs.Machine(f.workers, f.latency)
	m.Speed = f.speed
	return m, nil
}
