package advise

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/calibrate"
	"github.com/tsys-go/tsys/tsys"
)

// jobOptions make their job, and have no flags.
type jobOptions struct{ job cli.Job }

func (o jobOptions) Flags(*flag.FlagSet)   {}
func (o jobOptions) Job() (cli.Job, error) { return o.job, nil }

// TestCommandCalibrationFails: a calibration that fails ends advise with
// exit 1 and calibration's own message, which says what to do, before
// the program runs at all.
func TestCommandCalibrationFails(t *testing.T) {
	defer func(m func(context.Context, calibrate.Options) (calibrate.Costs, error)) { measureCosts = m }(measureCosts)
	measureCosts = func(context.Context, calibrate.Options) (calibrate.Costs, error) {
		return calibrate.Costs{}, errors.New("no echo of a 16 KiB message within 5s over loopback: is the machine overloaded? retry, or pass --startup and --per-byte to skip calibration")
	}
	job := &countedJob{}
	cfg := cli.Config{Name: "prog", Programs: []cli.Program{{Name: "p", Options: func() cli.Options { return jobOptions{job} }}}}
	cfg.Commands = []cli.Command{Command(cfg)}
	var errb bytes.Buffer
	code := cli.Exec(cfg, []string{"advise", "p"}, io.Discard, &errb)
	if code != 1 || !strings.Contains(errb.String(), "advise: calibration failed: no echo of a 16 KiB message") {
		t.Fatalf("exit %d, %q", code, errb.String())
	}
	if job.runs != 0 {
		t.Errorf("the program ran %d times after calibration failed", job.runs)
	}
}

// TestCommandMachine: the machine the advisor weighs is what calibration
// measured, with the flags' workers, latency and speed, and it passes
// the advisor's own check; calibration is handed the fib tree it times.
func TestCommandMachine(t *testing.T) {
	defer func(m func(context.Context, calibrate.Options) (calibrate.Costs, error)) { measureCosts = m }(measureCosts)
	costs := calibrate.Costs{Link: calibrate.Link{Startup: 50 * time.Microsecond, PerByte: 1.5},
		Tick: calibrate.Tick{PerTick: 3 * time.Microsecond}, Gossip: calibrate.Gossip{CPUFraction: 0.001}, Spawn: 40 * time.Nanosecond}
	var given calibrate.Options
	measureCosts = func(_ context.Context, o calibrate.Options) (calibrate.Costs, error) {
		given = o
		return costs, nil
	}
	cfg := &adviseConfig{nodes: []int{1, 4}, flags: adviseFlags{workers: 4, latency: time.Millisecond, speed: 0.5}}
	m, err := cfg.calibrate(context.Background(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(); err != nil {
		t.Errorf("Machine %+v: %v", m, err)
	}
	if m.Workers != 4 || m.Latency != time.Millisecond || m.Speed != 0.5 || m.Startup != costs.Link.Startup || m.PerByte != 1.5 ||
		m.Tick != costs.Tick.PerTick || m.Gossip != costs.Gossip.CPUFraction || m.Spawn != costs.Spawn {
		t.Errorf("Machine %+v of %+v", m, costs)
	}
	if given.Nodes != 4 || given.Fib == nil {
		t.Errorf("calibration was asked for %d nodes, fib tree given: %v; want 4 and a tree", given.Nodes, given.Fib != nil)
	}
}

// countedJob counts its runs.
type countedJob struct{ runs int }

func (j *countedJob) Params() map[string]any { return nil }
func (j *countedJob) Run(context.Context, *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	j.runs++
	return cli.Result{}, tsys.Stats{}, nil
}
