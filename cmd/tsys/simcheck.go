package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/tsys-go/tsys/apps/ep"
	"github.com/tsys-go/tsys/apps/uts"
	"github.com/tsys-go/tsys/bench"
	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/report"
	"github.com/tsys-go/tsys/internal/schedspec"
	"github.com/tsys-go/tsys/sim"
)

// A validation of the simulator against real runs on this machine (tsys
// sim --validate). Everything it needs is measured in the same invocation,
// because this machine's speed changes by the hour:
//
//   - each job's time on one node of one worker, T_1, which sets the
//     simulated task costs (the job's tasks split it evenly, or, for RT,
//     by the cost map, scaled to it);
//   - the speed of a node when N nodes share the machine: N copies of the
//     job run at once, with no communication, and speed_N = T_1 / their
//     median time (N Go processes on 2 cores slow each other more than N/2);
//   - the one-way latency: half the round trip of the real Fishing runs'
//     requests for work (steal_wait_ns over steal_answers), less the
//     overheads, for both schedulers (balancing sends no request to time);
//   - the speed of a worker that another may steal from, against one
//     alone (parallelSpeed): the busy time of one node of two workers
//     against one of one, for the same work;
//   - the real cluster runs themselves, N nodes x 1 worker.
//
// Then the simulator, given speed_N and the latency, predicts each run.

// validationJob is a job of the validation: its tsys run arguments, and
// the simulator's workload for it given T_1.
type validationJob struct {
	args     []string
	workload func(t1 time.Duration) (sim.Workload, error)
}

var validationJobs = []validationJob{
	{[]string{"ep", "--class", "W"}, func(t1 time.Duration) (sim.Workload, error) {
		c, err := ep.ParseClass("W")
		if err != nil {
			return nil, err
		}
		leaves := int64(c.Batches())
		return &sim.EP{Leaves: leaves, Leaf: t1 / time.Duration(leaves)}, nil
	}},
	utsValidation("T1"),
	{[]string{"rt", "--verify=false"}, func(t1 time.Duration) (sim.Workload, error) {
		return sim.ParseWorkload(fmt.Sprintf("rt:serial=%v", t1))
	}},
}

// utsValidation is the validation's job of UTS on the named sample tree.
func utsValidation(tree string) validationJob {
	return validationJob{[]string{"uts", "--tree", tree}, func(t1 time.Duration) (sim.Workload, error) {
		t, err := uts.Named(tree)
		if err != nil {
			return nil, err
		}
		return &sim.UTS{Tree: t, PerNode: t1 / time.Duration(t.Nodes)}, nil
	}}
}

// validationJobsOf is the validation's job of the app named (--app of
// --validate), for a check of one job in a third of the time; uts:tree=T
// checks UTS on another sample tree than T1 (the binomial T3L, whose
// chains are stolen again and again, is the hardest on the model).
func validationJobsOf(app string) ([]validationJob, error) {
	if tree, ok := strings.CutPrefix(app, "uts:tree="); ok {
		if _, err := uts.Named(tree); err != nil {
			return nil, cli.Usagef("--app %q with --validate: %v", app, err)
		}
		return []validationJob{utsValidation(tree)}, nil
	}
	var names []string
	for _, job := range validationJobs {
		if job.args[0] == app {
			return []validationJob{job}, nil
		}
		names = append(names, job.args[0])
	}
	return nil, cli.Usagef("--app %q with --validate: want one of %s, or uts:tree=NAME (the validation's own jobs; leave --app out for all of them)", app, strings.Join(names, ", "))
}

// validationNodes and validationScheds are the cluster runs a validation
// checks unless --nodes and --sched say others.
var (
	validationNodes  = []int{2, 4}
	validationScheds = []string{"fishing:random", "balance"}
)

// simValidate runs the validation of jobs and prints its table.

// simCheckRunLimit bounds each measured run of the simulator's check, as
// bench's --run-timeout does.
const simCheckRunLimit = 10 * time.Minute

func simValidate(jobs []validationJob, nodeCounts []int, scheds []string, reps int, stdout, stderr io.Writer) error {
	exe, err := selfPath()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "job\tscheduler\tconfig\tworker speed\tlatency\tmeasured s\tmin-max s\tpredicted s\terror\t")
	for _, job := range jobs {
		name := strings.Join(job.args, " ")
		t1, err := medianRun(exe, append(slices.Clone(job.args), "--workers", "1"), reps)
		if err != nil {
			return err
		}
		w, err := job.workload(t1.median)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: T_1 %.3f s\n", name, t1.median.Seconds())
		// One node of two workers: local stealing only, each worker as
		// fast as a process of its own beside another.
		speed2, err := colocatedSpeed(exe, job.args, 2, reps, t1.median)
		if err != nil {
			return err
		}
		real, err := medianRun(exe, append(slices.Clone(job.args), "--workers", "2"), reps)
		if err != nil {
			return err
		}
		par := parallelSpeed(t1, real)
		fmt.Fprintf(stderr, "%s: a worker with another to steal from works at %.2f of its speed alone (busy %.3f s on 1x2 against %.3f s on 1x1)\n",
			name, par, real.busy.Seconds(), t1.busy.Seconds())
		m := sim.Defaults()
		m.Nodes, m.Workers, m.Speed = 1, 2, []float64{speed2 * par}
		r, err := sim.Run(sim.Config{Model: m, Workload: w, Seed: 1})
		if err != nil {
			return fmt.Errorf("simulating %s on 1x2: %w", name, err)
		}
		printCheck(tw, name, "local", "1x2", speed2*par, 0, real, r)
		for _, n := range nodeCounts {
			speed, err := colocatedSpeed(exe, job.args, n, reps, t1.median)
			if err != nil {
				return err
			}
			var rtt time.Duration // Fishing's, measured first
			for _, sc := range scheds {
				real, err := medianRun(exe, append(slices.Clone(job.args), "--workers", "1", "--nodes", fmt.Sprint(n), "--sched", sc), reps)
				if err != nil {
					return err
				}
				m := sim.Defaults()
				m.Nodes, m.Workers = n, 1
				m.Speed = slices.Repeat([]float64{speed * par}, n)
				if real.rtt > 0 {
					rtt = real.rtt
				}
				if rtt > 0 {
					m.Latency = max(rtt/2-2*m.Overhead, 0)
				}
				f, err := schedspec.Parse(sc)
				if err != nil {
					return err
				}
				r, err := sim.Run(sim.Config{Model: m, Workload: w, Sched: f, Seed: 1})
				if err != nil {
					return fmt.Errorf("simulating %s on %d nodes: %w", name, n, err)
				}
				printCheck(tw, name, sc, fmt.Sprintf("%dx1", n), speed*par, m.Latency, real, r)
			}
		}
	}
	return tw.Flush()
}

// printCheck writes one row of the validation: the measured times beside
// the predicted one.
func printCheck(w io.Writer, job, sched, config string, speed float64, latency time.Duration, real runStats, r *sim.Result) {
	errPct := 100 * (r.Makespan.Seconds() - real.median.Seconds()) / real.median.Seconds()
	fmt.Fprintf(w, "%s\t%s\t%s\t%.2f\t%v\t%.3f\t%.3f-%.3f\t%.3f\t%+.0f%%\t\n", job, sched, config, speed, latency.Round(time.Microsecond),
		real.median.Seconds(), real.min.Seconds(), real.max.Seconds(), r.Makespan.Seconds(), errPct)
}

// runStats are a cell's times, the mean round trip of its requests for
// work (0 without any), and the median run's busy time.
type runStats struct {
	median, min, max time.Duration
	rtt              time.Duration
	busy             time.Duration
}

// parallelSpeed is the speed at which a worker does the job's work when
// another worker may steal from it, against one alone: one node of two
// workers inlines fewer children than one of one (a thief may want them),
// runs them as tasks and steals, and its busy time, summed over the
// workers, grows by as much. The simulator's tasks are the tree's own,
// not the runtime's, so the cost is charged as a slower worker rather
// than per task. 1 when the 1 x 2 run took no more busy time.
func parallelSpeed(one, two runStats) float64 {
	if one.busy <= 0 || two.busy <= one.busy {
		return 1
	}
	return one.busy.Seconds() / two.busy.Seconds()
}

// medianRun runs tsys run ARGS reps times.
func medianRun(exe string, args []string, reps int) (runStats, error) {
	var secs []float64
	var wait, answers int64
	var runs []*report.Report
	for range reps {
		r, err := runOnce(exe, args, simCheckRunLimit)
		if err != nil {
			return runStats{}, fmt.Errorf("tsys run %s: %w", strings.Join(args, " "), err)
		}
		secs = append(secs, r.WallSeconds)
		wait += r.Stats.StealWaitNs
		answers += r.Stats.StealAnswers
		runs = append(runs, r)
	}
	st := runStats{median: seconds(bench.Median(secs)), min: seconds(slices.Min(secs)), max: seconds(slices.Max(secs))}
	slices.SortFunc(runs, func(a, b *report.Report) int { return cmp.Compare(a.WallSeconds, b.WallSeconds) })
	mid := runs[len(runs)/2]
	st.busy = time.Duration(mid.Stats.BusyNanos)
	if answers > 0 {
		st.rtt = time.Duration(wait / answers)
	}
	return st, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// colocatedSpeed is what a node gets of this machine when n nodes share
// it: n copies of the job on one worker run at once, reps times, and the
// speed is t1 over their median time.
func colocatedSpeed(exe string, job []string, n, reps int, t1 time.Duration) (float64, error) {
	var secs []float64
	for range reps {
		var mu sync.Mutex
		var wg sync.WaitGroup
		var firstErr error
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := runOnce(exe, append(slices.Clone(job), "--workers", "1"), simCheckRunLimit)
				mu.Lock()
				defer mu.Unlock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if err == nil {
					secs = append(secs, r.WallSeconds)
				}
			}()
		}
		wg.Wait()
		if firstErr != nil {
			return 0, firstErr
		}
	}
	return t1.Seconds() / bench.Median(secs), nil
}
