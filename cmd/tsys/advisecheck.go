package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tsys-go/tsys/advise"
	"github.com/tsys-go/tsys/bench"
	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/cliflags"
	"gonum.org/v1/plot/plotter"
)

// `tsys advise-check` holds the advisor to measurement on this machine:
// for each job it asks `tsys advise JOB --nodes 2 --workers 1` for the
// grain (or inlining threshold) and scheduler of a 2-node run, then runs
// the job for real on 2 local nodes of one worker at every grain the
// advisor weighed, under the scheduler it chose, the grains alternating
// within each repetition. It reports how the advised grain's measured
// time compares with the best the sweep found, and the predicted 2-node
// times against the measured ones, in a table and a plot.
//
// The two nodes share this machine, so the advisor is told what a node
// gets of it (advise --speed): what a worker gets when two run at once,
// T1 over twice the job's time on one node of two workers, the two runs
// alternating. Two processes started at once would overlap only in part
// (each starts when it starts), and so seem faster than they are.
// Without a speed the advisor predicts for two machines like this one.

// adviseCheckJobs are the jobs the check runs unless told others: the
// issue's EP, RT and UTS T1L.
const adviseCheckJobs = "ep --class A;rt --verify=false;uts --tree T1L"

func adviseCheckCommand(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("tsys advise-check", stderr)
	cliflags.SetUsage(fs, "tsys advise-check [flags]", "Holds tsys advise to real 2-node runs: for each job, the grain advise picks against the best grain of real runs.")
	jobs := fs.String("jobs", adviseCheckJobs, "jobs, separated by ';', each an app and its flags")
	reps := fs.Int("reps", 3, "real runs of each grain (their median counts)")
	out := fs.String("out", "bench/results/advise", "folder for the plot and the table")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if *reps < 1 {
		return cli.Usagef("--reps %d: want at least 1", *reps)
	}
	exe, err := selfPath()
	if err != nil {
		return err
	}
	var rows []adviceCheck
	for _, job := range strings.Split(*jobs, ";") {
		if job = strings.TrimSpace(job); job == "" {
			continue
		}
		r, err := checkAdvice(exe, strings.Fields(job), *reps, stderr)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var table bytes.Buffer
	writeAdviceChecks(&table, rows)
	if err := os.WriteFile(filepath.Join(*out, "advise-check.md"), table.Bytes(), 0o644); err != nil {
		return err
	}
	if err := plotAdviceChecks(filepath.Join(*out, "advise-check.png"), rows); err != nil {
		return err
	}
	_, err = stdout.Write(table.Bytes())
	return err
}

// adviceCheck is one job's check: the advice, and each option's predicted
// and measured 2-node times.
type adviceCheck struct {
	job         string
	speed       float64 // a node's, when two share this machine
	advice      advise.Report
	options     []string // the grain flag's values, or inlining policies
	flag        string   // what options are values of: --leaf, --inline
	predicted   []float64
	measured    []float64 // medians
	spread      [][2]float64
	recommended int // the advised option's index
}

// checkAdvice asks for the advice on job and measures it.
func checkAdvice(exe string, job []string, reps int, stderr io.Writer) (adviceCheck, error) {
	c := adviceCheck{job: strings.Join(job, " ")}
	fmt.Fprintf(stderr, "advise-check: %s: a node's speed when two share this machine\n", c.job)
	if err := c.measureSpeed(exe, job, reps); err != nil {
		return c, err
	}
	fmt.Fprintf(stderr, "advise-check: advising %s at speed %.3f\n", c.job, c.speed)
	if err := adviseJSON(exe, append(slices.Clone(job), "--nodes", "2", "--workers", "1", "--reps", strconv.Itoa(reps), "--speed", strconv.FormatFloat(c.speed, 'f', 3, 64)), &c.advice); err != nil {
		return c, fmt.Errorf("tsys advise %s: %w", c.job, err)
	}
	rec := c.advice.Advice.Recommended
	if rec.Nodes != 2 {
		return c, fmt.Errorf("tsys advise %s --nodes 2 recommended %d nodes", c.job, rec.Nodes)
	}
	grain := c.advice.GrainFlag != ""
	c.flag = "--inline"
	if grain {
		c.flag = c.advice.GrainFlag
	}
	for _, o := range c.advice.Options {
		name := o.Inline
		if grain {
			name = o.Grain
		}
		p, ok := predictionAt(c.advice.Advice.Predictions, o, rec.Scheduler)
		if !ok {
			return c, fmt.Errorf("tsys advise %s: no 2-node prediction for %s under %s", c.job, name, rec.Scheduler)
		}
		if p.Grain == rec.Grain && p.Inline == rec.Inline {
			c.recommended = len(c.options)
		}
		c.options = append(c.options, name)
		c.predicted = append(c.predicted, p.Seconds)
	}
	// The grains alternate within each repetition, so that a change in
	// this machine's load falls on all of them alike.
	times := make([][]float64, len(c.options))
	for rep := range reps {
		for i, o := range c.options {
			args := append(slices.Clone(job), c.flag+"="+o, "--workers", "1", "--nodes", "2", "--sched", rec.Scheduler)
			if grain {
				args = append(args, "--inline", rec.Inline)
			}
			fmt.Fprintf(stderr, "advise-check: %d/%d tsys run %s\n", rep+1, reps, strings.Join(args, " "))
			r, err := runOnce(exe, args, simCheckRunLimit)
			if err != nil {
				return c, fmt.Errorf("tsys run %s: %w", strings.Join(args, " "), err)
			}
			times[i] = append(times[i], r.WallSeconds)
		}
	}
	for _, t := range times {
		c.measured = append(c.measured, bench.Median(t))
		c.spread = append(c.spread, [2]float64{slices.Min(t), slices.Max(t)})
	}
	return c, nil
}

// measureSpeed sets c.speed: T1 over twice the time of two workers.
func (c *adviceCheck) measureSpeed(exe string, job []string, reps int) error {
	times := map[int][]float64{}
	for range reps {
		for _, w := range []int{1, 2} {
			args := append(slices.Clone(job), "--workers", strconv.Itoa(w))
			r, err := runOnce(exe, args, simCheckRunLimit)
			if err != nil {
				return fmt.Errorf("tsys run %s: %w", strings.Join(args, " "), err)
			}
			times[w] = append(times[w], r.WallSeconds)
		}
	}
	c.speed = bench.Median(times[1]) / (2 * bench.Median(times[2]))
	return nil
}

// adviseJSON runs tsys advise ARGS --json into r.
func adviseJSON(exe string, args []string, r *advise.Report) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append(append([]string{"advise"}, args...), "--json")...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	return json.Unmarshal(out, r)
}

// predictionAt is option o's prediction on 2 nodes under sched.
func predictionAt(ps []advise.Prediction, o advise.OptionReport, sched string) (advise.Prediction, bool) {
	for _, p := range ps {
		if p.Nodes == 2 && p.Scheduler == sched && p.Grain == o.Grain && p.Inline == o.Inline {
			return p, true
		}
	}
	return advise.Prediction{}, false
}

// best is the index of the option measured fastest.
func (c *adviceCheck) best() int {
	return slices.Index(c.measured, slices.Min(c.measured))
}

func writeAdviceChecks(w io.Writer, rows []adviceCheck) {
	fmt.Fprintln(w, "| job | node speed | scheduler | advised | its time | best of the sweep | its time | advised / best | predicted 2-node | measured | error |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, c := range rows {
		a, b := c.recommended, c.best()
		fmt.Fprintf(w, "| %s | %.2f | %s | %s %s | %.3f s | %s %s | %.3f s | %.2f | %.3f s | %.3f s (%.3f to %.3f) | %+.1f%% |\n",
			c.job, c.speed, c.advice.Advice.Recommended.Scheduler, c.flag, c.options[a], c.measured[a], c.flag, c.options[b], c.measured[b],
			c.measured[a]/c.measured[b], c.predicted[a], c.measured[a], c.spread[a][0], c.spread[a][1],
			100*(c.predicted[a]-c.measured[a])/c.measured[a])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each option, predicted / measured 2-node seconds:")
	fmt.Fprintln(w)
	for _, c := range rows {
		var cells []string
		for i, o := range c.options {
			cells = append(cells, fmt.Sprintf("%s %s: %.3f / %.3f", c.flag, o, c.predicted[i], c.measured[i]))
		}
		fmt.Fprintf(w, "- %s: %s\n", c.job, strings.Join(cells, "; "))
	}
}

// plotAdviceChecks draws a panel per job: predicted and measured 2-node
// time against the option, on a log2 axis of the grain or K.
func plotAdviceChecks(path string, rows []adviceCheck) error {
	var panels []bench.LinePanel
	for _, c := range rows {
		var pred, meas plotter.XYs
		for i, o := range c.options {
			x := optionX(o, i)
			pred = append(pred, plotter.XY{X: x, Y: c.predicted[i]})
			meas = append(meas, plotter.XY{X: x, Y: c.measured[i]})
		}
		panels = append(panels, bench.LinePanel{
			Title: c.job + ", 2 nodes x 1 worker, " + c.advice.Advice.Recommended.Scheduler,
			X:     "log2 of " + c.flag, Y: "seconds",
			Lines: []bench.Line{{Name: "predicted", Points: pred}, {Name: "measured (median)", Points: meas}},
		})
	}
	return bench.SavePanels(path, panels, len(panels))
}

// optionX places an option on the plot's x axis: log2 of its number (a
// leaf size, load:K's K), or its index if it has none.
func optionX(o string, i int) float64 {
	if _, k, ok := strings.Cut(o, ":"); ok {
		o = k
	}
	if v, err := strconv.ParseFloat(o, 64); err == nil && v > 0 {
		return math.Log2(v)
	}
	return float64(i)
}
