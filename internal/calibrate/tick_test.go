package calibrate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

func TestTickCost(t *testing.T) {
	checkNoLeak(t)
	for _, sched := range []string{"balance", "fishing", "ratebalance"} {
		cfg := DefaultTickConfig()
		cfg.Sched, cfg.Ticks, cfg.Batches = sched, 500, 5
		tick, err := TickCost(context.Background(), cfg, forking)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %+v", sched, tick)
		// Loose: the race detector and a loaded machine's caches stretch
		// whatever runs.
		if tick.PerTick <= 0 || tick.PerTick >= 100*time.Millisecond {
			t.Errorf("%s: PerTick %v: want more than 0 and less than 100ms", sched, tick.PerTick)
		}
		if tick.Every != clusterpolicy.DefaultTickEvery || tick.CPUFraction != float64(tick.PerTick)/float64(tick.Every) {
			t.Errorf("%s: Every %v, CPUFraction %v for PerTick %v", sched, tick.Every, tick.CPUFraction, tick.PerTick)
		}
		if tick.Peers != cfg.Peers || tick.Sched != sched {
			t.Errorf("%s: %+v", sched, tick)
		}
	}
}

func TestTickCostRefuses(t *testing.T) {
	for _, c := range []struct {
		edit func(*TickConfig)
		want string
	}{
		{func(c *TickConfig) { c.Sched = "local" }, `"local" has no policy to tick`},
		{func(c *TickConfig) { c.Sched = "nosuch" }, `unknown scheduler "nosuch"`},
		{func(c *TickConfig) { c.Peers = -1 }, "Peers is -1"},
		{func(c *TickConfig) { c.Workers = 0 }, "Workers is 0"},
		{func(c *TickConfig) { c.Ticks = 0 }, "0 ticks"},
	} {
		cfg := DefaultTickConfig()
		c.edit(&cfg)
		if _, err := TickCost(context.Background(), cfg, forking); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error with %q", err, c.want)
		}
	}
}

func TestTickCostCancelled(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := TickCost(ctx, DefaultTickConfig(), forking)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "tick") {
		t.Errorf("got %v, want a cancellation that names the tick", err)
	}
}
