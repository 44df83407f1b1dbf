package advise

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tsys-go/tsys/cli"
)

// Command is the advise verb of a program whose command line is cfg:
// `NAME advise PROGRAM [program flags] [advise flags]` calibrates on this
// machine and says how to run PROGRAM, one of cfg.Programs, on a cluster
// of nodes like it. A program has the verb only if it asks for it, by
// adding it to its own commands:
//
//	cfg.Commands = append(cfg.Commands, advise.Command(cfg))
//
// since the verb links the simulator and the calibration, which a
// program that only runs its jobs has no use for. It works in three
// steps:
//
//  1. For each grain the program's Grain flag takes (or, for a program
//     without one, once), a run on one worker records the task tree with
//     inlining off, and a run without the recorder measures T1; the
//     tree's costs are scaled to T1 (the recorder's bookkeeping inflates
//     each frame alike) and folded below a message's cost (Fold).
//  2. The transport's ping-pong, a policy tick, gossip and a spawn are
//     measured, unless the flags give them.
//  3. Advise replays every tree in the simulator on every node count
//     under every scheduler, and picks.
//
// With --json it prints one Report. The Command reads cfg's Name and
// Programs when it is made: add the programs first.
func Command(cfg cli.Config) cli.Command {
	v := &verb{name: cfg.Name, programs: slices.Clone(cfg.Programs)}
	if v.name == "" {
		v.name = filepath.Base(os.Args[0])
	}
	slices.SortFunc(v.programs, func(a, b cli.Program) int { return strings.Compare(a.Name, b.Name) })
	return cli.Command{Name: "advise", Usage: "PROGRAM [program flags] [flags]",
		Summary: "how many nodes, what grain, which scheduler", Run: v.run}
}

// verb is the advise verb of one program: the name its usage and its
// advice's command line give the binary, and the programs it advises on,
// sorted by name as run lists them.
type verb struct {
	name     string
	programs []cli.Program
}

// lookup finds a program by name.
func (v *verb) lookup(name string) (cli.Program, error) {
	for _, p := range v.programs {
		if p.Name == name {
			return p, nil
		}
	}
	names := make([]string, len(v.programs))
	for i, p := range v.programs {
		names[i] = p.Name
	}
	if len(names) == 0 {
		return cli.Program{}, fmt.Errorf("unknown program %q: this binary has none to advise on (cli.Config.Programs was empty when advise.Command was made)", name)
	}
	return cli.Program{}, fmt.Errorf("unknown program %q: want one of %s", name, strings.Join(names, ", "))
}

// writePrograms lists the programs, a line each with its summary, as run
// -h does.
func (v *verb) writePrograms(w io.Writer) {
	for _, p := range v.programs {
		fmt.Fprintf(w, "  %-8s %s\n", p.Name, p.Summary)
	}
}

func (v *verb) run(args []string, stdout, stderr io.Writer) error {
	cfg, err := v.parseAdvise(args, stderr)
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
	a, err := Advise(m, opts, Question{Nodes: cfg.nodes, Scheds: cfg.scheds, Efficiency: cfg.flags.efficiency})
	if err != nil {
		return fmt.Errorf("advise %s: %w", cfg.app.Name, err)
	}
	out := Report{App: cfg.app.Name, Args: cfg.args, Workers: m.Workers, Machine: m, Advice: a, Command: cfg.command(v.name, a.Recommended, m.Workers)}
	if cfg.app.Grain != nil {
		out.GrainFlag = "--" + cfg.app.Grain.Flag
	}
	for _, o := range opts {
		out.Options = append(out.Options, OptionReport{Grain: o.Grain, Inline: o.Inline.String(), T1Seconds: o.T1.Seconds(), Tasks: o.Shape.Tasks, Replayed: len(o.Tree.Parent)})
	}
	if cfg.flags.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	out.WriteText(stdout)
	return nil
}

// command is the run command line that follows the advice.
func (cfg *adviseConfig) command(prog string, p Prediction, workers int) string {
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
