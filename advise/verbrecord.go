package advise

import (
	"context"
	"fmt"
	"github.com/tsys-go/tsys/internal/runtimecore"
	"io"
	"time"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/median"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/sim"
	"github.com/tsys-go/tsys/tsys"
)

// record runs the program once per grain to record its tree and time T1,
// and makes the options the advisor weighs, their trees folded below
// fold, a message's cost.
func (cfg *adviseConfig) record(ctx context.Context, fold time.Duration, stderr io.Writer) ([]Option, error) {
	grains := cfg.grains
	if len(grains) == 0 {
		grains = []string{""}
	}
	var opts []Option
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
		scaled, err := Scale(tree, t1)
		if err != nil {
			return nil, fmt.Errorf("advise: %s: %w", what, err)
		}
		folded, shape := Fold(scaled, fold), Shape(scaled)
		for _, p := range cfg.inlines {
			opts = append(opts, Option{Grain: g, Inline: p, Tree: folded, T1: t1, Shape: shape})
		}
	}
	return opts, nil
}

// recordTree runs job on one worker with every spawn a task and returns
// its tree.
func recordTree(ctx context.Context, job cli.Job, limit int) (sim.Tree, error) {
	rt := tsys.New(tsys.Workers(1), tsys.MeasureWorkSpan())
	rec := sched.NewTreeRecorder()
	rec.Limit = limit
	(*runtimecore.Runtime)(rt).Main().SetTreeRecorder(rec)
	res, _, err := job.Run(ctx, rt)
	if err != nil {
		return sim.Tree{}, err
	}
	if rec.Overflowed() {
		return sim.Tree{}, fmt.Errorf("it spawns more than %d tasks with inlining off, more than the recorder keeps (--max-tasks): advise on a smaller instance of it, whose grain and scheduler carry over, or raise --max-tasks (about 100 bytes of memory a task)", limit)
	}
	if _, err := verify(job, res); err != nil {
		return sim.Tree{}, fmt.Errorf("wrong answer: %w", err)
	}
	return sim.Tree{Parent: rec.Parent, WorkNs: rec.WorkNs}, nil
}

// timeT1 is the median time of reps runs of job on one worker under pol.
func timeT1(ctx context.Context, job cli.Job, pol inline.Policy, reps int) (time.Duration, error) {
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

// verify checks a run's answer when its job can: a calibration run that
// computes wrong is no run to advise on.
func verify(j cli.Job, r cli.Result) (verified bool, err error) {
	if v, ok := j.(cli.Verifier); ok {
		return v.Verify(r)
	}
	return false, nil
}
