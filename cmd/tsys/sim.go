package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/tsys-go/tsys/cli"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tsys-go/tsys/bench"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/cliflags"
	"github.com/tsys-go/tsys/internal/hog"
	"github.com/tsys-go/tsys/internal/schedspec"
	"github.com/tsys-go/tsys/sim"
)

// simCommand runs `tsys sim`: the schedulers' real policies on simulated
// nodes, one run or a sweep over node counts and schedulers.
func simCommand(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("tsys sim", stderr)
	cliflags.SetUsage(fs, "tsys sim [flags]", "Runs the schedulers' own policies on simulated nodes: one run, or a sweep over node counts and schedulers.")
	// A model file, read first, gives the flags their defaults: a flag
	// given overrides it.
	m, nodesDefault := sim.Defaults(), "64"
	if path := flagValue(args, "model"); path != "" {
		var err error
		if m, err = sim.ReadModel(path, m); err != nil {
			return cli.Usagef("%s", err.Error())
		}
		nodesDefault = strconv.Itoa(m.Nodes)
	}
	nodes := fs.String("nodes", nodesDefault, "node counts, comma-separated: several make a sweep")
	fs.IntVar(&m.Workers, "workers", m.Workers, "workers per node")
	scheds := fs.String("sched", "fishing", schedspec.Help("schedulers, separated by ';' (as tsys run --sched):"))
	app := fs.String("app", "ep", "workload: ep[:leaves=N,leaf=D], fib[:n=N,leaf=D], uts[:tree=T,node=D], rt[:scene=S,w=W,h=H,level=L,leaf=PIXELS,costmap=FILE], flat[:iters=N,cost=D,spread=F,seed=S] or replay:file=F (a tree tsys run --record-tree wrote)")
	fs.IntVar(&m.Zones, "zones", m.Zones, "zones the nodes are split into")
	fs.DurationVar(&m.Latency, "latency", m.Latency, "one-way message delay inside a zone")
	fs.DurationVar(&m.CrossLatency, "cross-latency", m.CrossLatency, "one-way message delay between zones")
	fs.Float64Var(&m.Bandwidth, "bandwidth", m.Bandwidth, "bytes per second on every link")
	fs.DurationVar(&m.Overhead, "overhead", m.Overhead, "a message's cost to its sender, and again to its receiver")
	fs.IntVar(&m.TaskBytes, "task-bytes", m.TaskBytes, "bytes of a lent task's argument")
	fs.IntVar(&m.ResultBytes, "result-bytes", m.ResultBytes, "bytes of a result")
	fs.DurationVar(&m.Tick, "tick", m.Tick, "how often a node's policy hears the time")
	fs.DurationVar(&m.Wake, "wake", m.Wake, "how long a parked worker takes to wake")
	fs.DurationVar(&m.Spawn, "spawn", m.Spawn, "what a child costs when it runs as a task rather than an inlined call (push, pop or steal, frame)")
	fs.DurationVar(&m.ResultHold, "result-hold", m.ResultHold, "the longest a borrower holds a result for others to the same lender, to send them together (0: the runtime's default, negative: each alone)")
	inlining := fs.String("inline", m.Inline.String(), "inlining policy, as tsys run --inline: load:K, off or always")
	speed := fs.String("speed", "", "node speeds, comma-separated from node 0 (missing: 1)")
	hogs := fs.String("hog", "", "competing load: NODE=F[:ON/OFF],... as tsys run --hog")
	fail := fs.String("fail", "", "a node that dies, and when: NODE@TIME, e.g. 3@50ms")
	adds := fs.String("add", "", "nodes that join the cluster mid-run, and when: NODE@TIME,... e.g. 3@20ms (Kale's expanding job)")
	drains := fs.String("drain", "", "nodes that leave gracefully mid-run, and when: NODE@TIME,... (as tsys drain)")
	fs.DurationVar(&m.Detect, "detect", m.Detect, "how long the others take to notice a dead node")
	seed := fs.Uint64("seed", 1, "seed of the workers' choice of victims")
	asJSON := fs.Bool("json", false, "print the results as one JSON object")
	out := fs.String("out", "", "folder for a sweep's CSV and plots")
	fs.String("model", "", "a JSON file of the model's parameters (the flags' names, durations such as \"50us\"); flags given override it")
	validate := fs.Bool("validate", false, "check the simulator against real runs of EP W, UTS T1 and RT on 1 node of 2 workers and on 2 and 4 local nodes of 1 worker, by fishing:random and balance (minutes; with --app ep, uts, rt or uts:tree=NAME, of that job alone; --nodes and --sched for other clusters)")
	reps := fs.Int("reps", 3, "repetitions of each real run of --validate")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	var err error
	if *validate {
		if *reps < 1 {
			return cli.Usagef("--reps %d: want at least 1", *reps)
		}
		jobs := validationJobs
		if flagGiven(fs, "app") {
			if jobs, err = validationJobsOf(*app); err != nil {
				return err
			}
		}
		nodeCounts, checked := validationNodes, validationScheds
		if flagGiven(fs, "nodes") {
			if nodeCounts, err = intList("--nodes", *nodes); err != nil {
				return err
			}
		}
		if flagGiven(fs, "sched") {
			checked = nil
			for _, s := range strings.Split(*scheds, ";") {
				if s = strings.TrimSpace(s); s != "" {
					checked = append(checked, s)
				}
			}
		}
		return simValidate(jobs, nodeCounts, checked, *reps, stdout, stderr)
	}
	if m.Inline, err = inline.Parse(*inlining); err != nil {
		return cli.Usagef("--inline: %v", err)
	}
	counts, err := intList("--nodes", *nodes)
	if err != nil {
		return err
	}
	w, err := sim.ParseWorkload(*app)
	if err != nil {
		return cli.Usagef("%s", err.Error())
	}
	if *speed != "" {
		if m.Speed, err = floatList("--speed", *speed); err != nil {
			return err
		}
	}
	if *hogs != "" {
		if m.Hogs, err = simHogs(*hogs); err != nil {
			return err
		}
	}
	if *fail != "" {
		f, err := nodeTimes("--fail", *fail)
		if err != nil || len(f) != 1 {
			return cli.Usagef("--fail %q: want one NODE@TIME, e.g. 3@50ms", *fail)
		}
		for i, at := range f {
			m.Fail, m.FailAt = i, at
		}
	}
	if m.Joins, err = nodeTimes("--add", *adds); err != nil {
		return err
	}
	if m.Drains, err = nodeTimes("--drain", *drains); err != nil {
		return err
	}
	type named struct {
		name string
		f    schedspec.Factory
	}
	var pols []named
	for _, s := range strings.Split(*scheds, ";") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		f, err := schedspec.Parse(s)
		if err != nil {
			return cli.Usagef("%s", err.Error())
		}
		pols = append(pols, named{s, f})
	}
	if len(pols) == 0 {
		return cli.Usagef("--sched %q: want at least one scheduler", *scheds)
	}
	var results []*sim.Result
	for _, p := range pols {
		for _, n := range counts {
			mm := m
			mm.Nodes = n
			if mm.Zones > n {
				mm.Zones = n
			}
			if err := mm.Check(); err != nil {
				return cli.Usagef("%s", err.Error())
			}
			r, err := sim.Run(sim.Config{Model: mm, Workload: w, Sched: p.f, Seed: *seed})
			if err != nil {
				return fmt.Errorf("sim %s on %d nodes: %w", p.name, n, err)
			}
			if len(counts)*len(pols) > 1 {
				r.PerNode = nil // a sweep reports totals
			}
			r.Scheduler = p.name // as given, options included
			results = append(results, r)
		}
	}
	if *out != "" {
		if err := writeSimFolder(*out, results); err != nil {
			return err
		}
	}
	if *asJSON {
		var v any = results
		if len(results) == 1 {
			v = results[0]
		}
		return json.NewEncoder(stdout).Encode(v)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	// The columns after "sim s" say where the workers' time went: work,
	// msg CPU and idle sum to 100%, and stealing is the part of idle
	// spent waiting for answers to requests for work.
	fmt.Fprintln(tw, "scheduler\tnodes\tworkers\tmakespan\tT1/P\tT_inf\tgreedy bound\tE_P\ttasks moved\tmessages\tstatus msgs\tidle\tsim s\tmsgs/moved\twork\tmsg CPU\tstealing\t")
	for _, r := range results {
		p := time.Duration(r.Nodes * r.Workers)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%v\t%v\t%v\t%.3f\t%d\t%d\t%d\t%.0f%%\t%.1f\t%.2f\t%.0f%%\t%.0f%%\t%.0f%%\t\n", r.Scheduler, r.Nodes, r.Workers,
			round(r.Makespan), round(r.Work/p), round(r.Span), round(r.GreedyBound), r.Efficiency, r.TasksMoved, r.Messages, r.StatusMessages, 100*r.IdleShare, r.Seconds,
			r.MessagesPerMove, 100*r.WorkShare, 100*r.MessageShare, 100*r.StealShare)
	}
	return tw.Flush()
}

func round(d time.Duration) time.Duration { return d.Round(time.Microsecond) }

func floatList(flagName, s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var out []float64
	for _, item := range strings.Split(s, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(item), 64)
		if err != nil || f <= 0 {
			return nil, cli.Usagef("%s %q: want positive numbers separated by commas, e.g. 1,0.5", flagName, s)
		}
		out = append(out, f)
	}
	return out, nil
}

// simHogs reads --hog NODE=SPEC,... for the simulator.
func simHogs(s string) (map[int]hog.Spec, error) {
	if s == "" {
		return nil, nil
	}
	out := map[int]hog.Spec{}
	for _, item := range strings.Split(s, ",") {
		idx, spec, ok := strings.Cut(item, "=")
		i, err := strconv.Atoi(idx)
		if !ok || err != nil || i < 0 {
			return nil, cli.Usagef("--hog %q: want NODE=SPEC, e.g. 1=0.5 or 1=0.5:2s/2s", item)
		}
		h, err := hog.Parse(spec)
		if err != nil {
			return nil, cli.Usagef("--hog: %v", err)
		}
		out[i] = h
	}
	return out, nil
}

// writeSimFolder writes a sweep's results: sim.csv, a row per run;
// sim.png, E_P and messages against nodes per scheduler; and time.png,
// where the workers' time went against nodes, a panel per scheduler.
func writeSimFolder(dir string, results []*sim.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sim output folder: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, "sim.csv"))
	if err != nil {
		return fmt.Errorf("sim output: %w", err)
	}
	cw := csv.NewWriter(f)
	cw.Write([]string{"workload", "scheduler", "nodes", "workers", "makespan_ns", "work_ns", "span_ns", "lower_bound_ns", "greedy_bound_ns", "efficiency", "tasks", "tasks_moved", "messages", "bytes", "status_messages", "idle_share", "events", "sim_seconds",
		"refusals", "results", "messages_per_move", "work_share", "message_share", "steal_share"})
	for _, r := range results {
		cw.Write([]string{r.Workload, r.Scheduler, strconv.Itoa(r.Nodes), strconv.Itoa(r.Workers),
			fmt.Sprint(int64(r.Makespan)), fmt.Sprint(int64(r.Work)), fmt.Sprint(int64(r.Span)), fmt.Sprint(int64(r.LowerBound)), fmt.Sprint(int64(r.GreedyBound)),
			strconv.FormatFloat(r.Efficiency, 'f', 4, 64), fmt.Sprint(r.Tasks), fmt.Sprint(r.TasksMoved), fmt.Sprint(r.Messages), fmt.Sprint(r.Bytes),
			fmt.Sprint(r.StatusMessages), strconv.FormatFloat(r.IdleShare, 'f', 4, 64), fmt.Sprint(r.Events), strconv.FormatFloat(r.Seconds, 'f', 3, 64),
			fmt.Sprint(r.Refusals), fmt.Sprint(r.Results), strconv.FormatFloat(r.MessagesPerMove, 'f', 3, 64),
			strconv.FormatFloat(r.WorkShare, 'f', 4, 64), strconv.FormatFloat(r.MessageShare, 'f', 4, 64), strconv.FormatFloat(r.StealShare, 'f', 4, 64)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		f.Close()
		return fmt.Errorf("writing sim.csv: %w", err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	eff := bench.LinePanel{Title: results[0].Workload, X: "nodes", Y: "E_P = T_1 / (P makespan)"}
	msgs := bench.LinePanel{Title: results[0].Workload, X: "nodes", Y: "messages (status included)"}
	index := map[string]int{}
	for _, r := range results {
		i, ok := index[r.Scheduler]
		if !ok {
			i = len(eff.Lines)
			index[r.Scheduler] = i
			eff.Lines = append(eff.Lines, bench.Line{Name: r.Scheduler})
			msgs.Lines = append(msgs.Lines, bench.Line{Name: r.Scheduler})
		}
		x := float64(r.Nodes)
		eff.Lines[i].Points = append(eff.Lines[i].Points, struct{ X, Y float64 }{x, r.Efficiency})
		msgs.Lines[i].Points = append(msgs.Lines[i].Points, struct{ X, Y float64 }{x, float64(r.Messages)})
	}
	if err := bench.SavePanels(filepath.Join(dir, "sim.png"), []bench.LinePanel{eff, msgs}, 2); err != nil {
		return err
	}
	return bench.SavePanels(filepath.Join(dir, "time.png"), timePanels(results), 2)
}

// timePanels are time.png's panels: for each scheduler, the shares of
// the workers' time spent working, handling messages, stealing (waiting
// for answers to requests for work) and idle otherwise, against nodes.
func timePanels(results []*sim.Result) []bench.LinePanel {
	var panels []bench.LinePanel
	index := map[string]int{}
	for _, r := range results {
		i, ok := index[r.Scheduler]
		if !ok {
			i = len(panels)
			index[r.Scheduler] = i
			panels = append(panels, bench.LinePanel{Title: r.Workload + ", " + r.Scheduler, X: "nodes", Y: "share of the workers' time",
				Lines: []bench.Line{{Name: "working"}, {Name: "handling messages"}, {Name: "stealing"}, {Name: "idle"}}})
		}
		x := float64(r.Nodes)
		for j, y := range []float64{r.WorkShare, r.MessageShare, r.StealShare, r.IdleShare - r.StealShare} {
			panels[i].Lines[j].Points = append(panels[i].Lines[j].Points, struct{ X, Y float64 }{x, y})
		}
	}
	return panels
}

// flagValue finds --NAME VALUE or --NAME=VALUE in args before the flags
// are parsed (a model file sets the other flags' defaults); "" if absent.
func flagValue(args []string, name string) string {
	for i, a := range args {
		for _, p := range []string{"-" + name, "--" + name} {
			switch {
			case a == p && i+1 < len(args):
				return args[i+1]
			case strings.HasPrefix(a, p+"="):
				return strings.TrimPrefix(a, p+"=")
			}
		}
	}
	return ""
}

// nodeTimes reads NODE@TIME,... (--fail, --add, --drain): nil for "".
func nodeTimes(flag, s string) (map[int]time.Duration, error) {
	if s == "" {
		return nil, nil
	}
	out := map[int]time.Duration{}
	for _, item := range strings.Split(s, ",") {
		idx, at, ok := strings.Cut(strings.TrimSpace(item), "@")
		i, err1 := strconv.Atoi(idx)
		d, err2 := time.ParseDuration(at)
		if !ok || err1 != nil || err2 != nil || i < 0 {
			return nil, cli.Usagef("%s %q: want NODE@TIME,..., e.g. 3@50ms", flag, item)
		}
		if _, dup := out[i]; dup {
			return nil, cli.Usagef("%s: node %d given twice", flag, i)
		}
		out[i] = d
	}
	return out, nil
}
