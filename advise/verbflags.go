package advise

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/cliflags"
	"github.com/tsys-go/tsys/internal/schedspec"
)

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
	fs.StringVar(&f.sched, "sched", strings.Join(schedspec.Defaults(), ";"), schedspec.Help("schedulers to weigh, separated by ';' (as run --sched):"))
	fs.StringVar(&f.grains, "grains", "", "values of the program's grain flag to weigh, comma-separated (default: the program's own list)")
	fs.StringVar(&f.inlines, "inline", "", "inlining policies to weigh, comma-separated (default: the program's own for a program with a grain flag, else "+adviseInlines+")")
	fs.Float64Var(&f.efficiency, "efficiency", DefaultEfficiency, "least predicted efficiency at which more nodes are worth having")
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
	app     cli.Program
	args    []string // the program's own flags as given
	flags   adviseFlags
	nodes   []int
	scheds  []string
	grains  []string
	inlines []inline.Policy
}

func (v *verb) parseAdvise(args []string, stderr io.Writer) (*adviseConfig, error) {
	if len(args) == 0 || cliflags.IsHelp(args[0]) {
		fmt.Fprintf(stderr, "usage: %s advise PROGRAM [program flags] [advise flags]\n\nprograms:\n", v.name)
		v.writePrograms(stderr)
		fmt.Fprint(stderr, "\nadvise flags:\n")
		fs := flag.NewFlagSet("advise", flag.ContinueOnError)
		new(adviseFlags).register(fs)
		cliflags.Write(stderr, fs)
		if len(args) == 0 {
			return nil, cli.Usagef("advise needs a program: %s advise PROGRAM, with PROGRAM one of those above", v.name)
		}
		return nil, flag.ErrHelp
	}
	app, err := v.lookup(args[0])
	if err != nil {
		return nil, cli.Usagef("%v", err)
	}
	cfg := &adviseConfig{app: app}
	appFS := flag.NewFlagSet(app.Name, flag.ContinueOnError)
	makeJob := jobMaker(app, appFS)
	own := flag.NewFlagSet("advise", flag.ContinueOnError)
	cfg.flags.register(own)
	var clash []string
	own.VisitAll(func(f *flag.Flag) {
		if appFS.Lookup(f.Name) != nil {
			clash = append(clash, "--"+f.Name)
		}
	})
	if len(clash) > 0 {
		return nil, cli.Usagef("%s defines %s, which advise uses for itself: rename the program's flag", app.Name, strings.Join(clash, ", "))
	}
	fs := cli.NewFlagSet(v.name+" advise "+app.Name, stderr)
	cliflags.Merge(fs, appFS)
	cliflags.Merge(fs, own)
	cliflags.SetUsage(fs, fs.Name()+" [program flags] [advise flags], in any order", "")
	if err := cli.ParseFlags(fs, args[1:]); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, cli.Usagef("unexpected argument %q after the flags of %s: it takes flags only (%s --help lists them)", fs.Arg(0), app.Name, fs.Name())
	}
	if _, err := makeJob(); err != nil {
		return nil, cli.Usagef("%v", err)
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
		return nil, cli.Usagef("--workers %d: want at least 1 worker a node", f.workers)
	case f.efficiency <= 0 || f.efficiency > 1:
		return nil, cli.Usagef("--efficiency %g: want a share above 0 and up to 1, e.g. 0.75", f.efficiency)
	case f.latency < 0:
		return nil, cli.Usagef("--latency %v: want 0 or more", f.latency)
	case f.speed <= 0:
		return nil, cli.Usagef("--speed %g: want more than 0 (1: as fast as this machine)", f.speed)
	case given["startup"] != given["per-byte"]:
		return nil, cli.Usagef("--startup and --per-byte go together: give both to skip the ping-pong, or neither")
	case given["startup"] && (f.startup <= 0 || f.perByte < 0):
		return nil, cli.Usagef("--startup %v, --per-byte %g: want a start-up cost above 0 and a cost per byte of 0 or more", f.startup, f.perByte)
	case f.maxTasks < 1:
		return nil, cli.Usagef("--max-tasks %d: want at least 1", f.maxTasks)
	case f.reps < 1:
		return nil, cli.Usagef("--reps %d: want at least 1", f.reps)
	}
	if cfg.nodes, err = nodeCounts(f.nodes); err != nil {
		return nil, err
	}
	for _, s := range strings.Split(f.sched, ";") {
		if s = strings.TrimSpace(s); s != "" {
			if _, err := schedspec.Parse(s); err != nil {
				return nil, cli.Usagef("--sched: %v", err)
			}
			cfg.scheds = append(cfg.scheds, s)
		}
	}
	if len(cfg.scheds) == 0 {
		return nil, cli.Usagef("--sched %q: name at least one scheduler, e.g. fishing;balance", f.sched)
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
			return nil, cli.Usagef("--nodes %q: want node counts of 1 or more, comma-separated, e.g. %s", s, adviseNodes)
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
		return cli.Usagef("--grains: %s has no grain flag to tune (its Program has no Grain); weigh --inline policies instead", cfg.app.Name)
	case g != nil && appFS.Lookup(g.Flag) == nil:
		return fmt.Errorf("%s's Grain names --%s, which it does not define: fix the Program", cfg.app.Name, g.Flag)
	case g != nil:
		cfg.grains = g.Values
		if f.grains != "" {
			cfg.grains = strings.Split(f.grains, ",")
		}
		if slices.ContainsFunc(cfg.args, func(a string) bool { return strings.HasPrefix(a, "--"+g.Flag+"=") }) {
			return cli.Usagef("--%s is what advise tunes for %s: leave it out, or weigh the values you want with --grains", g.Flag, cfg.app.Name)
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
			inlines = cliflags.DefaultInline(cfg.app.InlineK).String()
		}
	}
	for _, s := range strings.Split(inlines, ",") {
		p, err := inline.Parse(strings.TrimSpace(s))
		if err != nil {
			return cli.Usagef("--inline: %v", err)
		}
		cfg.inlines = append(cfg.inlines, p)
	}
	return nil
}

// job makes the program's job with its grain flag at g ("": as given).
func (cfg *adviseConfig) job(g string) (cli.Job, error) {
	fs := flag.NewFlagSet(cfg.app.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	makeJob := jobMaker(cfg.app, fs)
	args := slices.Clone(cfg.args)
	if g != "" {
		args = append(args, "--"+cfg.app.Grain.Flag+"="+g)
	}
	if err := fs.Parse(args); err != nil {
		return nil, cli.Usagef("--grains: %s", err)
	}
	job, err := makeJob()
	if err != nil {
		return nil, cli.Usagef("--grains: %v", err)
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

// jobMaker defines the program's flags on fs, as run does, and returns
// what makes its job once fs is parsed.
func jobMaker(app cli.Program, fs *flag.FlagSet) func() (cli.Job, error) {
	return cliflags.JobMaker(app.Name, app.Options, fs)
}
