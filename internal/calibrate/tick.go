package calibrate

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/cputime"
	"github.com/tsys-go/tsys/internal/median"
	"github.com/tsys-go/tsys/internal/runtimecore"
	"github.com/tsys-go/tsys/internal/schedspec"
)

// TickConfig says how TickCost measures; DefaultTickConfig gives every
// field.
type TickConfig struct {
	// Sched is the scheduler, as --sched spells it (schedspec.Parse); not
	// local, whose nodes have no policy to tick.
	Sched string
	// Peers is how many other nodes the policy knows (0 or more): a
	// balancing policy's tick goes through them all.
	Peers int
	// Workers is the runtime's worker count, whose pool the tick reads.
	Workers int
	// Ticks per batch, and Batches: the cost is the median over the
	// batches of a batch's time per tick.
	Ticks, Batches int
}

// DefaultTickConfig measures the balancing policy of a node of eight, with
// the workers a node here would have.
func DefaultTickConfig() TickConfig {
	return TickConfig{Sched: "balance", Peers: 7, Workers: runtime.GOMAXPROCS(0), Ticks: 2000, Batches: 9}
}

// Tick is what a node's tick costs.
type Tick struct {
	// PerTick is the CPU time of one tick of one job's engine.
	PerTick time.Duration `json:"per_tick_ns"`
	// Every is how often a node ticks (clusterpolicy.DefaultTickEvery), and
	// CPUFraction = PerTick / Every the share of a core the ticks take.
	Every       time.Duration `json:"every_ns"`
	CPUFraction float64       `json:"cpu_fraction"`
	// Sched, Peers and Workers are what was measured (TickConfig); empty
	// when the cost was given.
	Sched   string `json:"sched,omitempty"`
	Peers   int    `json:"peers,omitempty"`
	Workers int    `json:"workers,omitempty"`
}

// tickOf completes a Tick from its per-tick cost.
func tickOf(perTick time.Duration) Tick {
	return Tick{PerTick: perTick, Every: clusterpolicy.DefaultTickEvery,
		CPUFraction: float64(perTick) / float64(clusterpolicy.DefaultTickEvery)}
}

// check says what is wrong with c, or nil.
func (c TickConfig) check() error {
	switch {
	case c.Peers < 0:
		return fmt.Errorf("calibrate: TickConfig.Peers is %d: want 0 or more", c.Peers)
	case c.Workers < 1:
		return fmt.Errorf("calibrate: TickConfig.Workers is %d: want 1 or more", c.Workers)
	case c.Ticks < 1 || c.Batches < 1:
		return fmt.Errorf("calibrate: TickConfig has %d ticks in %d batches: want 1 of each at least (DefaultTickConfig has %d in %d)",
			c.Ticks, c.Batches, DefaultTickConfig().Ticks, DefaultTickConfig().Batches)
	}
	return nil
}

// TickCost measures what a node's tick costs a job's engine: every
// TickEvery, cluster.Node's tick reads the process's CPU time, and for each
// job measures its pool's load (Port.Load, BusyTime, TasksDone), feeds the
// useful-work, rate and task-time meters, and hands the load to the job's
// policy (Tick) under the engine's lock, then publishes the policy's
// Advice to the pool. TickCost does the same, with the same pieces: a
// policy made by schedspec.Parse(cfg.Sched) that has heard cfg.Peers
// peers join and report a load, and the pool of a real runtime of
// cfg.Workers workers after a run. A batch of ticks is timed by the CPU
// time it took (stopwatch), and the cost is the median over the batches. What the actions send is not in it:
// that is messages (Link), and gossiping the load every 100 ms is gossip
// (GossipCost).
func TickCost(ctx context.Context, cfg TickConfig, fib Fib) (Tick, error) {
	if err := cfg.check(); err != nil {
		return Tick{}, err
	}
	if fib == nil {
		return Tick{}, errors.New(errNoFib)
	}
	factory, err := schedspec.Parse(cfg.Sched)
	if err != nil {
		return Tick{}, fmt.Errorf("calibrate: TickConfig.Sched: %w", err)
	}
	if factory == nil {
		return Tick{}, fmt.Errorf("calibrate: TickConfig.Sched %q has no policy to tick: want %s", cfg.Sched, schedspec.Movers())
	}
	const what = "the policy's tick"
	if ctx.Err() != nil {
		return Tick{}, cancelled(ctx, what)
	}

	// A pool that has run, so that BusyTime reads workers' idle times
	// rather than returning at once as before any run.
	rt := runtimecore.New(runtimecore.Config{Workers: cfg.Workers, Inline: inline.Default()})
	rctx, cancel := context.WithTimeout(ctx, spawnTimeout)
	err = fib(rctx, rt, spawnMinN)
	cancel()
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return Tick{}, cancelled(ctx, what)
	case rctx.Err() != nil:
		return Tick{}, overloaded(skipTick, "fib(%d) did not finish within %v, to measure the tick on its pool", spawnMinN, spawnTimeout)
	default:
		return Tick{}, fmt.Errorf("calibration failed: a run to measure the tick on: %w: %s", err, skipTick)
	}
	e := newTickEngine(rt, factory("self", ""), cfg.Peers)

	perTick := make([]time.Duration, 0, cfg.Batches)
	for range cfg.Batches {
		if ctx.Err() != nil {
			return Tick{}, cancelled(ctx, what)
		}
		sw := startStopwatch()
		for range cfg.Ticks {
			e.tick()
		}
		perTick = append(perTick, sw.elapsed()/time.Duration(cfg.Ticks))
	}
	t := tickOf(median.Of(perTick))
	t.Sched, t.Peers, t.Workers = cfg.Sched, cfg.Peers, cfg.Workers
	return t, nil
}

// tickEngine is what cluster's engine does on a tick (engine.measure and
// advise), with the same parts.
type tickEngine struct {
	rt     *runtimecore.Runtime
	mu     sync.Mutex // the engine's: the policy runs under it
	policy clusterpolicy.Policy

	useful   clusterpolicy.UsefulWork
	rate     clusterpolicy.RateMeter
	busy     clusterpolicy.RateMeter
	taskTime clusterpolicy.TaskTimeMeter
}

// newTickEngine gives policy peers peers, as an engine gives a new
// policy the members it knows, each with a load report: a third of them
// out of work, as in a job under way.
func newTickEngine(rt *runtimecore.Runtime, policy clusterpolicy.Policy, peers int) *tickEngine {
	now := time.Now()
	workers := rt.Workers()
	for i := range peers {
		id := clusterpolicy.NodeID(fmt.Sprintf("peer-%d", i))
		policy.Membership(now, clusterpolicy.MemberEvent{Node: id, Joined: true})
		l := clusterpolicy.Load{Workers: workers, Ready: 4 * (i % 3), Rate: float64(workers), Busy: float64(workers)}
		policy.LoadReport(now, id, l)
	}
	return &tickEngine{rt: rt, policy: policy}
}

// tick is one tick of the node with this one job. The actions it returns
// are dropped: carrying them out is sending messages.
func (e *tickEngine) tick() {
	now := time.Now()
	cpu, cpuOK := cputime.Process()
	pool := e.rt.Main()
	l := pool.Port().Load()
	busy := pool.Port().BusyTime(now)
	useful := e.useful.Add(busy, cpu, cpuOK)
	l.Rate = e.rate.Observe(now, useful)
	l.Busy = e.busy.Observe(now, busy)
	l.TaskTime = e.taskTime.Observe(now, useful, pool.Port().TasksDone())
	e.mu.Lock()
	e.policy.Tick(time.Now(), l)
	a := e.policy.Advice()
	pool.Port().SetExpose(a.Expose)
	pool.Port().SetReserve(a.Reserve)
	pool.Port().SetWanted(a.Deferred > 0)
	e.mu.Unlock()
}
