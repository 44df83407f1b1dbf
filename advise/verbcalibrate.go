package advise

import (
	"context"
	"fmt"
	"io"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/internal/calibrate"
	"github.com/tsys-go/tsys/internal/runtimecore"
	"github.com/tsys-go/tsys/tsys"
)

// measureCosts is calibrate.Measure, which a test replaces to see a
// calibration fail.
var measureCosts = calibrate.Measure

// calibrate measures this machine, or takes what the flags give.
func (cfg *adviseConfig) calibrate(ctx context.Context, stderr io.Writer) (Machine, error) {
	f := &cfg.flags
	o := calibrate.Options{Nodes: cfg.nodes[len(cfg.nodes)-1], Fib: forking}
	if f.startup > 0 { // given, with --per-byte (parseAdvise)
		o.Link = &calibrate.Link{Startup: f.startup, PerByte: calibrate.NsPerByte(f.perByte)}
	}
	fmt.Fprintln(stderr, "advise: calibrating: messages over the transport, a policy tick, gossip, a spawn")
	costs, err := measureCosts(ctx, o)
	if err != nil {
		return Machine{}, fmt.Errorf("advise: calibration failed: %w", err)
	}
	return Machine{Workers: f.workers, Latency: f.latency, Speed: f.speed,
		Startup: costs.Link.Startup, PerByte: float64(costs.Link.PerByte),
		Tick: costs.Tick.PerTick, Gossip: costs.Gossip.CPUFraction, Spawn: costs.Spawn}, nil
}

// forking is the tree calibration times a spawn on: apps/fib's natural
// Fork and Join code, which the advise verb, being of the lab, may link.
func forking(ctx context.Context, rt *runtimecore.Runtime, n int) error {
	_, _, err := tsys.Run(ctx, (*tsys.Runtime)(rt), fib.Forking, n)
	return err
}
