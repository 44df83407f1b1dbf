package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// Job is one app with its flags, as `tsys run` takes them: "uts --tree T1".
type Job struct{ Args []string }

// ParseJobs reads jobs separated by ';'.
func ParseJobs(s string) []Job {
	var out []Job
	for _, item := range strings.Split(s, ";") {
		if f := strings.Fields(item); len(f) > 0 {
			out = append(out, Job{Args: f})
		}
	}
	return out
}

func (j Job) String() string { return strings.Join(j.Args, " ") }

// Config is how a job runs: serially (the T_S baseline), or on NODES x
// WORKERS with a scheduler ("" takes tsys run's default).
type Config struct {
	Serial         bool
	Nodes, Workers int
	Sched          string
}

// ParseConfig reads "serial" or NODESxWORKERS[:SCHED], e.g. "2x1:balance".
// The scheduler is checked by the caller, with the rest of the command line.
func ParseConfig(s string) (Config, error) {
	if s == "serial" {
		return Config{Serial: true, Nodes: 1, Workers: 1}, nil
	}
	shape, sched, _ := strings.Cut(s, ":")
	n, w, ok := strings.Cut(shape, "x")
	nodes, err1 := strconv.Atoi(n)
	workers, err2 := strconv.Atoi(w)
	if !ok || err1 != nil || err2 != nil || nodes < 1 || workers < 1 {
		return Config{}, fmt.Errorf("bench config %q: want serial or NODESxWORKERS[:SCHED], e.g. 2x1:fishing:load", s)
	}
	return Config{Nodes: nodes, Workers: workers, Sched: sched}, nil
}

// SplitConfigs splits a comma-separated list of configs at the commas that
// start a new config: a scheduler's own options are comma-separated too, as
// in 2x1:fishing:random,tasks=8.
func SplitConfigs(s string) []string {
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

// String is the config as ParseConfig reads it.
func (c Config) String() string {
	if c.Serial {
		return "serial"
	}
	s := fmt.Sprintf("%dx%d", c.Nodes, c.Workers)
	if c.Sched != "" {
		s += ":" + c.Sched
	}
	return s
}

// SchedName is the scheduler the config runs, as plots and tables group
// by it: "serial", or the scheduler ("default" when tsys run picks it).
func (c Config) SchedName() string {
	switch {
	case c.Serial:
		return "serial"
	case c.Sched == "":
		return "default"
	}
	return c.Sched
}

// Args are the flags of tsys run for the config.
func (c Config) Args() []string {
	if c.Serial {
		return []string{"--serial"}
	}
	a := []string{"--nodes", strconv.Itoa(c.Nodes), "--workers", strconv.Itoa(c.Workers)}
	if c.Sched != "" {
		a = append(a, "--sched", c.Sched)
	}
	return a
}

// Load is a scenario of competing load (Siegell's): none, or tsys run's
// --hog spec with every node pinned to its own CPU.
type Load struct {
	// Hog is the --hog value, e.g. "1=0.5" or "1=0.5:2s/2s"; "" for none.
	Hog string
	// Pinned pins the nodes even without a hog, for a fair baseline.
	Pinned bool
}

// ParseLoads reads scenarios separated by ';': "none" (unpinned), "pin"
// (pinned, no hog), or a --hog spec (pinned, with the hog).
func ParseLoads(s string) []Load {
	var out []Load
	for _, item := range strings.Split(s, ";") {
		switch item = strings.TrimSpace(item); item {
		case "":
		case "none":
			out = append(out, Load{})
		case "pin":
			out = append(out, Load{Pinned: true})
		default:
			out = append(out, Load{Hog: item, Pinned: true})
		}
	}
	return out
}

func (l Load) String() string {
	switch {
	case l.Hog != "":
		return "hog " + l.Hog
	case l.Pinned:
		return "pin"
	}
	return "none"
}

// Args are the flags of tsys run for the scenario.
func (l Load) Args() []string {
	var a []string
	if l.Pinned {
		a = append(a, "--pin")
	}
	if l.Hog != "" {
		a = append(a, "--hog", l.Hog)
	}
	return a
}

// fits reports whether every node the hog names exists under c: a hog on
// node 1 means nothing on one node, nor beside a serial run.
func (l Load) fits(c Config) bool {
	for _, item := range strings.Split(l.Hog, ",") {
		idx, _, ok := strings.Cut(item, "=")
		if !ok {
			continue
		}
		if i, err := strconv.Atoi(idx); err == nil && (i >= c.Nodes || (c.Serial && i > 0)) {
			return false
		}
	}
	return true
}

// Cell is one job under one config and load: the unit the repetitions
// sample.
type Cell struct {
	Job    Job
	Config Config
	Load   Load
}

// Args are the arguments of tsys run for the cell.
func (c Cell) Args() []string {
	a := append(append([]string{}, c.Job.Args...), c.Config.Args()...)
	return append(a, c.Load.Args()...)
}

func (c Cell) String() string { return fmt.Sprintf("%s | %s | %s", c.Job, c.Config, c.Load) }

// Matrix is a benchmark: every job under every config and load, Reps
// times each.
type Matrix struct {
	Jobs    []Job
	Configs []Config
	Loads   []Load // empty: one scenario, none
	Reps    int
	// Warmup runs each job this many times first, under its first config,
	// and discards the results: caches, page tables and the CPU's clock
	// settle before anything counts.
	Warmup int
}

// Cells lists the matrix's cells, job by job, and the cells it leaves out
// because their load names a node the config does not have.
func (m Matrix) Cells() (cells, skipped []Cell) {
	loads := m.Loads
	if len(loads) == 0 {
		loads = []Load{{}}
	}
	for _, j := range m.Jobs {
		for _, l := range loads {
			for _, c := range m.Configs {
				cell := Cell{Job: j, Config: c, Load: l}
				if l.fits(c) {
					cells = append(cells, cell)
				} else {
					skipped = append(skipped, cell)
				}
			}
		}
	}
	return cells, skipped
}

// Step is one run of the schedule: a cell and the repetition it is
// (-1 for a warm-up run).
type Step struct {
	Cell int
	Rep  int
}

// Schedule orders the runs: warm-ups first, then each repetition over
// every cell, each repetition starting at a different cell, so that the
// machine's drift over the run (a neighbour's load, the clock's
// throttling) falls on all cells alike rather than on the last ones.
func (m Matrix) Schedule(cells []Cell) []Step {
	var steps []Step
	warmed := map[string]bool{}
	for i, c := range cells {
		if key := c.Job.String(); !warmed[key] {
			warmed[key] = true
			for k := 0; k < m.Warmup; k++ {
				steps = append(steps, Step{Cell: i, Rep: -1})
			}
		}
	}
	n := len(cells)
	for r := 0; r < m.Reps; r++ {
		offset := r * n / max(m.Reps, 1)
		for k := 0; k < n; k++ {
			steps = append(steps, Step{Cell: (offset + k) % n, Rep: r})
		}
	}
	return steps
}
