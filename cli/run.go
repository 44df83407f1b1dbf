package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/cliflags"
	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/outfile"
	"github.com/tsys-go/tsys/internal/report"
	"github.com/tsys-go/tsys/internal/runtimecore"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/schedspec"
	"github.com/tsys-go/tsys/internal/tasktree"
	"github.com/tsys-go/tsys/tsys"
)

// commonFlags are the flags every app of `tsys run` takes.
type commonFlags struct {
	workers    int
	timeout    time.Duration
	inline     string
	serial     bool
	json       bool
	quiet      bool
	sched      string
	profile    string
	profileDir string
	nodes      int
	join       string
	net        netFlags
	http       string
	keyFile    string
	timeline   string
	hog        string
	pin        bool
	workspan   bool
	tlCap      int
	recordTree string
	minNodes   int
	maxNodes   int
	launch     launchFlags
	dryRun     bool
}

func (c *commonFlags) register(fs *flag.FlagSet, prog string) {
	fs.IntVar(&c.workers, "workers", runtime.GOMAXPROCS(0), "workers per node")
	fs.DurationVar(&c.timeout, "timeout", 0, "end the job, failed (exit 1), if it has not finished within this long, e.g. 10m (0: no limit; --serial: the process exits, leaving the serial code unfinished)")
	fs.StringVar(&c.inline, "inline", "", "inlining policy: load:K, off or always (default: the app's own, load:"+strconv.Itoa(inline.DefaultK)+" unless the app knows better; uts: load:8)")
	fs.BoolVar(&c.serial, "serial", false, "run the plain serial Go version, without the runtime (the T_S baseline)")
	fs.BoolVar(&c.json, "json", false, "print exactly one JSON object on stdout (and no live status)")
	fs.BoolVar(&c.quiet, "quiet", false, "no live status on stderr (it shows only on a terminal, once the job has run a second)")
	fs.StringVar(&c.sched, "sched", "", schedspec.Help("scheduler (default: local on one node, fishing:random on several; on one node none has work to move):"))
	fs.StringVar(&c.hog, "hog", "", "competing CPU load on nodes: NODE=F[:ON/OFF],... (node 0 is this process), e.g. 1=0.5")
	fs.BoolVar(&c.pin, "pin", false, "pin node i to CPU i (Linux), so that a node's hog shares its core")
	fs.IntVar(&c.nodes, "nodes", 1, "run on N nodes on loopback: this process and N-1 node processes it starts and stops")
	fs.StringVar(&c.join, "join", "", "join the cluster at HOST:PORT[,HOST:PORT...] as a node for this run, the root task starting here (a HOST without a port: port 7946)")
	c.net.register(fs, "127.0.0.1:0")
	c.launch.register(fs)
	fs.IntVar(&c.minNodes, "min-nodes", 0, "with --join: the least nodes of the cluster the job needs; it waits, saying so, until that many take part (on nodes that share by equipartition, "+prog+" node --share equi, until they are dealt to it) (0: it starts at once; under equi it is dealt one when one is free)")
	fs.IntVar(&c.maxNodes, "max-nodes", 0, "with --join: the most nodes of the cluster the job can use, on nodes that share by equipartition (0: all)")
	fs.StringVar(&c.http, "http", "", "serve this node's dashboard, /metrics and /api/ during the run at HOST:PORT (as "+prog+" node --http)")
	fs.StringVar(&c.keyFile, "key-file", "", "cluster key file (without one, nodes listen on loopback only)")
	fs.StringVar(&c.recordTree, "record-tree", "", "write the task tree (each task's parent and own work) to FILE, for tsys sim --app replay:file=FILE; implies --workspan, one node only")
	fs.BoolVar(&c.workspan, "workspan", false, "measure work, span and parallelism of the task graph (turns inlining off: every spawn is a task)")
	fs.StringVar(&c.timeline, "timeline", "", "write a Chrome trace-event JSON (Perfetto) of every node's workers, tasks, idle time, steals, lends and messages to FILE")
	fs.IntVar(&c.tlCap, "timeline-cap", timelineEvents, "events each worker keeps on the --timeline, each taking at most "+strconv.Itoa(sched.TimelineEventBytes)+" bytes of memory, recorded and written (the default: "+memory(timelineEvents*sched.TimelineEventBytes)+" a worker); each node's message track keeps 1/"+strconv.Itoa(sched.NoteEvents)+" as many notes; the rest are counted as dropped")
	fs.StringVar(&c.profile, "profile", "", "write a profile: cpu, mem, block, mutex or trace (with --nodes N, one per node in DIR/node-I)")
	fs.StringVar(&c.profileDir, "profile-dir", ".", "directory for --profile output")
	fs.BoolVar(&c.dryRun, "dry-run", false, "check the command line and make the job as a run would, then exit without running it: 0, or the error the run would exit with (a script checks a batch of runs before it queues them)")
}

// runConfig is a parsed `tsys run` command line.
type runConfig struct {
	cmd    *command
	app    Program
	job    Job
	common commonFlags
	inline inline.Policy
	policy schedspec.Factory
	key    []byte
	// loads are the pinning and hogs of the nodes, this process first.
	loads []loadFlags
	// launch is this process's place in a job a launcher started one
	// process a rank (srun, mpirun): nil for a process of its own.
	launch *launched
	// verified is the result's check, once made.
	verified *verification
}

func (c *command) parseRun(args []string, stderr io.Writer) (*runConfig, error) {
	if len(args) == 0 {
		c.runUsage(stderr)
		return nil, Usagef("run needs a program: %s run PROGRAM, with PROGRAM one of those above", c.name)
	}
	if cliflags.IsHelp(args[0]) {
		c.runUsage(stderr)
		return nil, flag.ErrHelp
	}
	app, err := c.lookup(args[0])
	if err != nil {
		return nil, usageError{msg: err.Error()}
	}
	cfg := &runConfig{cmd: c, app: app}
	fs, makeJob := c.runFlagSet(app, &cfg.common, stderr)
	if err := ParseFlags(fs, args[1:]); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, Usagef("unexpected argument %q after the flags of %s: it takes flags only (%s --help lists them)", fs.Arg(0), app.Name, fs.Name())
	}
	if cfg.job, err = makeJob(); err != nil {
		return nil, usageError{msg: err.Error()}
	}
	if _, ok := cfg.job.(SerialJob); cfg.common.serial && !ok {
		return nil, Usagef("--serial: %s has no serial version (its Job is not a cli.SerialJob); run it without --serial", app.Name)
	}
	if cfg.common.timeout < 0 {
		return nil, Usagef("--timeout %v: want a duration of 0 (no limit) or more, e.g. 10m", cfg.common.timeout)
	}
	if err := c.checkWorkers(cfg.common.workers); err != nil {
		return nil, err
	}
	cfg.inline = app.inline()
	if cfg.common.inline != "" {
		if cfg.inline, err = inline.Parse(cfg.common.inline); err != nil {
			return nil, usageError{msg: err.Error()}
		}
	}
	if err := cfg.common.net.check(cfg.common.join, cfg.common.http, cfg.common.keyFile != ""); err != nil {
		return nil, err
	}
	if cfg.common.nodes < 1 {
		return nil, Usagef("--nodes %d: want at least 1", cfg.common.nodes)
	}
	if err := c.checkLocalNodes(cfg.common.nodes); err != nil {
		return nil, err
	}
	if err := cfg.common.checkNodeCounts(); err != nil {
		return nil, err
	}
	if cfg.common.nodes > 1 && cfg.common.join != "" {
		return nil, Usagef("--nodes and --join do not go together: --nodes starts its own cluster; drop one of them")
	}
	if err := cfg.parseLaunch(fs, stderr); err != nil {
		return nil, err
	}
	if cfg.common.http != "" && (cfg.common.serial || cfg.common.recordTree != "") {
		return nil, Usagef("--http watches the runtime: it does not go with --serial or --record-tree; drop one of them")
	}
	if err := checkIgnored(fs, cfg.ignoredFlags()); err != nil {
		return nil, err
	}
	if cfg.loads, err = nodeLoads(cfg.common.hog, cfg.common.pin, cfg.common.nodes); err != nil {
		return nil, err
	}
	if cfg.common.sched == "" {
		cfg.common.sched = "local"
		if cfg.clustered() {
			cfg.common.sched = "fishing:random"
		}
	}
	if cfg.policy, err = schedspec.Parse(cfg.common.sched); err != nil {
		return nil, usageError{msg: err.Error()}
	}
	if !cfg.clustered() && cfg.policy.Name() != "local" {
		// Run and reported as asked (scripts sweep --sched over node
		// counts from 1), but not silently.
		fmt.Fprintf(stderr, "tsys: --sched %s moves work between nodes, and this run has one: it has no work to move (add --nodes N or --join HOST:PORT)\n", cfg.common.sched)
	}
	if cfg.common.recordTree != "" {
		if cfg.clustered() {
			return nil, Usagef("--record-tree records one node's tree; it does not go with --nodes or --join: drop them, or --record-tree")
		}
		cfg.common.workspan = true
	}
	if cfg.common.workspan {
		switch {
		case cfg.common.serial:
			return nil, Usagef("--workspan measures the task graph, and --serial runs none: drop one of them")
		case cfg.common.join != "":
			return nil, Usagef("--workspan does not go with --join: the cluster's nodes inline by their own policy, which hides the graph; measure with --nodes N")
		}
		// Every spawn a task, here and on the nodes --nodes starts: see
		// tsys.MeasureWorkSpan.
		cfg.inline = inline.Never()
	}
	if cfg.common.tlCap < 1 {
		return nil, Usagef("--timeline-cap %d: want at least 1", cfg.common.tlCap)
	}
	if cfg.launch != nil {
		cfg.key = cfg.launch.key
	} else if cfg.common.keyFile != "" {
		if cfg.key, err = readKeyFile(cfg.common.keyFile, stderr); err != nil {
			return nil, err
		}
	}
	// Last, and without truncating: a run refused above leaves the files
	// as they were.
	for name, path := range map[string]string{"--timeline": cfg.common.timeline, "--record-tree": cfg.common.recordTree} {
		if path != "" {
			if err := outfile.Check(path); err != nil {
				return nil, Usagef("%s: %v: give a file in a folder that exists and that you may write", name, err)
			}
		}
	}
	return cfg, nil
}

// runFlagSet is the flag set tsys run APP parses: the app's flags and the
// common flags merged, so that they can come in any order. Each is also
// kept in a set of its own, from which -h says which flag is whose.
func (c *command) runFlagSet(app Program, common *commonFlags, stderr io.Writer) (*flag.FlagSet, func() (Job, error)) {
	appFS := flag.NewFlagSet(app.Name, flag.ContinueOnError)
	makeJob := app.jobMaker(appFS)
	commonFS := commonFlagSet(common, c.name)
	fs := NewFlagSet(c.name+" run "+app.Name, stderr)
	cliflags.Merge(fs, appFS)
	cliflags.Merge(fs, commonFS)
	fs.Usage = func() { c.appUsage(fs.Output(), app.Name, appFS, commonFS) }
	return fs, makeJob
}

// commonFlagSet is a flag set of the common flags alone, bound to c; prog
// names the program in their help.
func commonFlagSet(c *commonFlags, prog string) *flag.FlagSet {
	fs := flag.NewFlagSet("common", flag.ContinueOnError)
	c.register(fs, prog)
	return fs
}

// runUsage is tsys run -h: what follows run, the apps, and the flags
// every app takes.
func (c *command) runUsage(w io.Writer) {
	fmt.Fprintf(w, `usage: %s run PROGRAM [program flags] [common flags]

Runs one job of PROGRAM, checks its result and prints it. The program's
flags and the common flags may come in any order after PROGRAM.

programs:
`, c.name)
	c.writePrograms(w)
	fmt.Fprint(w, "\ncommon flags:\n")
	cliflags.Write(w, commonFlagSet(new(commonFlags), c.name))
	// --help, not -h: rt's -h is the image height.
	fmt.Fprintf(w, "\nRun '%s run PROGRAM --help' for a program's own flags.\n", c.name)
}

// appUsage is tsys run APP -h: the app's flags and the common ones in
// sections of their own, since one list of them all hides the few that
// choose the app's problem among the many that choose how it runs.
func (c *command) appUsage(w io.Writer, app string, appFS, commonFS *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s run %s [%s's flags] [common flags], in any order\n\n%s's flags:\n", c.name, app, app, app)
	cliflags.Write(w, appFS)
	fmt.Fprint(w, "\ncommon flags:\n")
	cliflags.Write(w, commonFS)
}

// timelineCap is the events per worker the run's timeline keeps; 0 when
// it records none.
func (c *runConfig) timelineCap() int {
	if c.common.timeline == "" {
		return 0
	}
	return c.common.tlCap
}

// checkNodeCounts checks --min-nodes and --max-nodes.
func (c *commonFlags) checkNodeCounts() error {
	switch {
	case c.minNodes < 0 || c.maxNodes < 0:
		return Usagef("--min-nodes %d, --max-nodes %d: want counts of nodes, 0 or more", c.minNodes, c.maxNodes)
	case c.maxNodes > 0 && c.minNodes > c.maxNodes:
		return Usagef("--min-nodes %d is more than --max-nodes %d: want a least no more than the most", c.minNodes, c.maxNodes)
	case (c.minNodes > 0 || c.maxNodes > 0) && c.join == "":
		return Usagef("--min-nodes and --max-nodes are for a job that joins a shared cluster: add --join HOST:PORT")
	}
	return nil
}

// clustered reports whether the run spans several nodes.
func (c *runConfig) clustered() bool {
	return c.common.nodes > 1 || c.common.join != "" || c.launch != nil
}

func (c *command) runCommand(args []string, stdout, stderr io.Writer) error {
	cfg, err := c.parseRun(args, stderr)
	if err != nil || cfg.common.dryRun {
		return err
	}
	if cfg.rank() {
		return cfg.serveRank(stderr)
	}
	profileDir := cfg.common.profileDir
	if cfg.common.nodes > 1 {
		profileDir = nodeProfileDir(cfg, 0)
	}
	stop, err := startProfile(cfg.common.profile, profileDir)
	if err != nil {
		return err
	}
	defer stop()
	stopLoad, err := cfg.loads[0].start(c.executable)
	defer stopLoad()
	if err != nil {
		return err
	}

	stopping := []os.Signal{os.Interrupt}
	if cfg.root() {
		// scancel and SLURM's time limit end a launched job with SIGTERM.
		stopping = append(stopping, syscall.SIGTERM)
		defer noticeWarnings(context.Background(), stderr)()
	}
	ctx, cancel := signal.NotifyContext(context.Background(), stopping...)
	defer cancel()
	if d := cfg.common.timeout; d > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, d, &timedOut{d})
		defer stop()
	}

	rep := report.Report{
		App:     cfg.app.Name,
		Params:  cfg.job.Params(),
		Nodes:   1,
		Workers: cfg.common.workers,
	}
	var res Result
	start := time.Now()
	if cfg.common.serial {
		rep.Scheduler, rep.Inline, rep.Workers = "serial", "always", 1
		res, err = runSerial(ctx, cfg.job.(SerialJob))
		rep.WallSeconds = time.Since(start).Seconds()
	} else if cfg.clustered() || cfg.common.http != "" {
		// --http on one node: a cluster of one, which the monitor watches.
		rep.Scheduler, rep.Inline = cfg.policy.Name(), cfg.inline.String()
		res, err = runCluster(ctx, cfg, &rep, stderr)
	} else {
		rt := runtimecore.New(runtimecore.Config{Workers: cfg.common.workers, Inline: cfg.inline, WorkSpan: cfg.common.workspan})
		pool := rt.Main()
		rep.Scheduler, rep.Inline = cfg.policy.Name(), rt.Inline().String()
		var tree *sched.TreeRecorder
		if cfg.common.recordTree != "" {
			tree = sched.NewTreeRecorder()
			pool.SetTreeRecorder(tree)
		}
		if cfg.common.timeline != "" {
			pool.SetTimeline(sched.NewTimeline(cfg.timelineCap()))
		}
		waiting := sayWhatItWaitsFor(ctx, func() string {
			l := pool.Port().Load()
			return fmt.Sprintf("%d ready tasks and %d of %d workers busy", l.Ready, l.Workers-l.Idle, l.Workers)
		})
		var st tsys.Stats
		stopStatus := cfg.liveStatus(stderr, poolSample(pool))
		res, st, err = cfg.job.Run(ctx, (*tsys.Runtime)(rt))
		stopStatus()
		rep.Stats.Stats = sched.Stats(st)
		err = waiting(err)
		rep.WallSeconds = time.Since(start).Seconds()
		last := rt.Last()
		rep.PerWorker = cluster.WorkerStats(last.View().WorkerStats())
		if cfg.common.workspan {
			rep.WorkSpan = report.NewWorkSpan(time.Duration(st.WorkNanos), last.View().Span(), cfg.common.workers, rep.WallSeconds)
		}
		if err == nil && tree != nil {
			err = writeTree(cfg.common.recordTree, cfg.app.Name, tree)
		}
		if err == nil && cfg.common.timeline != "" {
			err = writeTimeline(cfg.common.timeline, c.name+" "+cfg.app.Name, []report.TracePart{{Data: pool.View().TimelineData("")}}, stderr)
		}
	}
	if errors.As(err, new(usageError)) {
		return err // the command line's mistake, shown by the network: not the job's failure
	}
	if err != nil {
		return fmt.Errorf("%s failed: %w", cfg.app.Name, err)
	}
	verified, verr := cfg.verify(res)
	rep.Result, rep.Verified = res.Value, verified && verr == nil
	if cfg.common.json {
		if err := rep.WriteJSON(stdout); err != nil {
			return err
		}
	} else {
		rep.WriteText(stdout, res.Text)
	}
	if verr != nil {
		return fmt.Errorf("%s: wrong answer: %w", cfg.app.Name, verr)
	}
	return nil
}

// runSerial runs a job's plain serial version, which takes no context:
// at --timeout or an interrupt the run fails with the cause at once, as
// one on the runtime does, and the serial code is left to the process's
// exit (Main's; a test's Exec leaves it to finish on its own).
func runSerial(ctx context.Context, j SerialJob) (Result, error) {
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := j.Serial()
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-ctx.Done():
		return Result{}, context.Cause(ctx)
	}
}

// timedOut is the cause of a job's end at --timeout.
type timedOut struct{ limit time.Duration }

func (e *timedOut) Error() string {
	return fmt.Sprintf("the job did not finish within --timeout %v", e.limit)
}

// sayWhatItWaitsFor has a job that ends at --timeout say what it was
// waiting for at that moment, as what describes: it returns the function
// that adds that to the job's error.
func sayWhatItWaitsFor(ctx context.Context, what func() string) func(error) error {
	var said atomic.Pointer[string]
	described := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(described)
		if errors.As(context.Cause(ctx), new(*timedOut)) {
			w := what()
			said.Store(&w)
		}
	})
	return func(err error) error {
		// The job can end as soon as its context does, before what has
		// returned: once the description has begun, wait for it (what
		// reads a snapshot, which ends), or the message would lack it.
		if !stop() {
			<-described
		}
		if w := said.Load(); w != nil && err != nil {
			return fmt.Errorf("%w (it was waiting for: %s)", err, *w)
		}
		return err
	}
}

// verify checks the run's result, once: a launched job's root checks it
// before it tells its ranks how the job ended, and again to report.
func (c *runConfig) verify(r Result) (bool, error) {
	if c.verified == nil {
		ok, err := verify(c.job, r)
		c.verified = &verification{ok, err}
	}
	return c.verified.ok, c.verified.err
}

// verification is a result's check, kept.
type verification struct {
	ok  bool
	err error
}

// verify checks a result if the job can (Verifier).
func verify(j Job, r Result) (verified bool, err error) {
	if v, ok := j.(Verifier); ok {
		return v.Verify(r)
	}
	return false, nil
}

// timelineEvents is the default --timeline-cap: as many events as keep a
// worker's timeline within 64 MiB, recorded and written.
const timelineEvents = 64 << 20 / sched.TimelineEventBytes

// writeTimeline writes the nodes' timelines, the root's first, into path,
// and says on stderr when a node dropped events at its cap.
func writeTimeline(path, title string, parts []report.TracePart, stderr io.Writer) error {
	cap := 0
	for _, p := range parts {
		cap = max(cap, p.Data.CapPerWorker)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--timeline: %w", err)
	}
	dropped, err := report.WriteTrace(f, title, parts)
	if err != nil {
		f.Close()
		return err
	}
	if dropped > 0 {
		fmt.Fprintf(stderr, "tsys: the timeline keeps the first %d events of each worker (--timeline-cap), which bounds its memory to %s a worker; %d more were dropped: to see them, raise --timeline-cap (memory grows with it) or record a shorter run\n",
			cap, memory(int64(cap)*sched.TimelineEventBytes), dropped)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--timeline: %w", err)
	}
	return nil
}

// memory writes a number of bytes for people, in MiB or KiB rounded up.
func memory(bytes int64) string {
	if bytes >= 1<<20 {
		return strconv.FormatInt((bytes+1<<20-1)>>20, 10) + " MiB"
	}
	return strconv.FormatInt((bytes+1<<10-1)>>10, 10) + " KiB"
}

// writeTree writes a recorded task tree as tasktree.Tree's JSON.
func writeTree(path, app string, r *sched.TreeRecorder) error {
	b, err := json.Marshal(tasktree.Tree{App: app, Parent: r.Parent, WorkNs: r.WorkNs})
	if err != nil {
		return fmt.Errorf("--record-tree: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("--record-tree: %w", err)
	}
	return nil
}
