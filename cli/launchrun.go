package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/launch"
)

// processStart is about when this process started: a launched job
// reports how long its ranks took to gather from then.
var processStart = time.Now()

// parseLaunch finds a run's launcher. Under srun, mpirun or an Indexed
// Job of several ranks, rank 0 roots the job and the others serve it,
// with no address typed; --join slurm joins the nodes that srun tsys
// node started in this SLURM job. A run given its cluster (--join, --nodes)
// is no rank, and several ranks each rooting a job are refused.
func (cfg *runConfig) parseLaunch(fs *flag.FlagSet, stderr io.Writer) error {
	c := &cfg.common
	command := cfg.cmd.name + " run " + cfg.app.Name
	if c.join != "" || c.nodes > 1 || c.launch.launcher == "none" {
		if l, err := launch.Detect(launch.Request{Getenv: os.LookupEnv, Launcher: c.launch.launcher, Program: cfg.cmd.name, Command: command}); err == nil && l != nil && l.Size > 1 {
			flagName := "--join"
			if c.nodes > 1 {
				flagName = "--nodes"
			}
			return Usagef("%s started %d processes, and with %s each would run a job of its own: drop %s (the ranks make one cluster, rank 0 rooting the job), or start one process", l.Launcher, l.Size, flagName, flagName)
		}
		if c.join != "slurm" {
			return nil
		}
		l, err := launch.JoinSlurm(os.LookupEnv)
		if err != nil {
			return usageError{msg: err.Error()}
		}
		if cfg.launch, err = resolveLaunch(l, c.launch, c.keyFile, stderr); err != nil {
			return err
		}
		c.join = cfg.launch.join
		return nil
	}
	l, err := cfg.cmd.detectLaunch(c.launch, false, command)
	if err != nil || l == nil || l.Size == 1 {
		return err
	}
	switch {
	case c.serial:
		return Usagef("--serial runs one process, and %s started %d: start one (srun -n 1), or drop --serial", l.Launcher, l.Size)
	case c.workspan || c.recordTree != "":
		return Usagef("--workspan and --record-tree measure one process's task graph, and %s started %d: start one (srun -n 1)", l.Launcher, l.Size)
	case c.minNodes > 0 || c.maxNodes > 0:
		return Usagef("--min-nodes and --max-nodes are for a job on a shared cluster; under %s the job has its %d ranks", l.Launcher, l.Size)
	}
	if cfg.launch, err = resolveLaunch(l, c.launch, c.keyFile, stderr); err != nil {
		return err
	}
	if !flagSet(fs, "workers") && l.Workers > 0 {
		if c.workers, err = cfg.cmd.launchWorkers(l); err != nil {
			return err
		}
	}
	return nil
}

// rank reports whether the process is a launched job's rank other than
// 0, which serves the job rather than rooting it.
func (c *runConfig) rank() bool {
	return c.launch != nil && !c.launch.Launch.Client && c.launch.Rank != 0
}

// root reports whether the process is a launched job's rank 0.
func (c *runConfig) root() bool {
	return c.launch != nil && !c.launch.Launch.Client && c.launch.Rank == 0
}

// serveRank serves a launched job as one of its ranks other than 0,
// until rank 0 ends it: the process exits with the job's status.
func (cfg *runConfig) serveRank(stderr io.Writer) error {
	p := cfg.launch
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := p.findRoot(cfg.common.net.joinTimeout); err != nil {
		return err
	}
	ncfg := cluster.Config{Workers: cfg.common.workers, Inline: cfg.inline, Policy: cfg.policy, Logger: logger}
	cfg.common.net.apply(&ncfg)
	ncfg = p.config(ncfg)
	ncfg.Fast = allLoopback([]string{p.bind})
	node, err := cluster.Start(ncfg)
	if err != nil {
		return p.startError(err)
	}
	return serve(node, true, time.Minute, logger)
}

// dismissRanks ends a launched job's other ranks with the job's status
// and, for a failure, why.
func (cfg *runConfig) dismissRanks(node *cluster.Node, err error) {
	var status uint8
	reason := ""
	if err != nil {
		status, reason = 1, err.Error()
	}
	if derr := node.Dismiss(status, reason); derr != nil {
		fmt.Fprintf(os.Stderr, "%s: rank 0 could not tell every rank the job ended (they end when they miss it): %v\n", cfg.cmd.name, derr)
	}
}

// noticeWarnings has a launched job's root note SIGUSR1, which SLURM sends
// ahead of the time limit when asked (--signal=USR1@60), rather than die
// of it: its other ranks drain, and the job runs on here until SLURM
// ends it.
func noticeWarnings(ctx context.Context, stderr io.Writer) func() {
	if len(warningSignals) == 0 {
		return func() {}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, warningSignals...)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		for {
			select {
			case s := <-sig:
				fmt.Fprintf(stderr, "tsys: %v: the job's time is running out; the other ranks drain, and the job runs on here until it ends or SLURM ends it\n", s)
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { signal.Stop(sig); cancel() }
}
