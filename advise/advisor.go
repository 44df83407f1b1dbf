package advise

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/balance"
	"github.com/tsys-go/tsys/internal/schedspec"
	"github.com/tsys-go/tsys/sim"
)

// Machine is what calibration measured of this machine, whose nodes the
// advice is for: each of Workers workers, and a network whose messages
// cost what the transport's ping-pong measured.
type Machine struct {
	Workers int `json:"workers"`
	// Startup and PerByte are a message's one-way time over the real
	// transport, Startup + PerByte x bytes (Cesar's mo and k).
	Startup time.Duration `json:"startup_ns"`
	PerByte float64       `json:"per_byte_ns"`
	// Latency is the network's own one-way delay, beyond what loopback's
	// ping-pong measured (0: the nodes are as close as loopback).
	Latency time.Duration `json:"latency_ns"`
	// Tick is the CPU of one policy tick; Gossip the share of a node's
	// CPU that membership's gossip takes.
	Tick   time.Duration `json:"tick_ns"`
	Gossip float64       `json:"gossip_share"`
	// Spawn is what a task costs more than an inlined call.
	Spawn time.Duration `json:"spawn_ns"`
	// Speed is a node's worker speed against this machine's one worker,
	// on which T1 was measured (0: 1): below 1 for slower nodes, or for
	// nodes that share this machine's cores.
	Speed float64 `json:"speed,omitempty"`
}

// Check says what is wrong with m.
func (m Machine) Check() error {
	switch {
	case m.Workers < 1:
		return fmt.Errorf("%d workers a node: want at least 1", m.Workers)
	case m.Startup <= 0:
		return fmt.Errorf("a message's start-up cost of %v: calibration must measure more than 0", m.Startup)
	case m.PerByte < 0 || m.Latency < 0 || m.Tick < 0 || m.Spawn < 0:
		return errors.New("negative costs: calibration went wrong")
	case m.Gossip < 0 || m.Gossip >= 1:
		return fmt.Errorf("gossip takes %g of a node: want a share from 0 to below 1", m.Gossip)
	case m.Speed < 0:
		return fmt.Errorf("a node's speed of %g: want more than 0 (0: this machine's)", m.Speed)
	}
	return nil
}

// Option is one way of running the program that the advisor weighs: a
// value of its grain flag, or an inlining threshold, with the tree a run
// recorded at it.
type Option struct {
	// Grain is the grain flag's value ("" when the options differ by
	// inlining alone).
	Grain  string
	Inline inline.Policy
	// Tree is the recorded tree, scaled (Scale) to T1; T1 is a run's time
	// on one worker without the recorder.
	Tree sim.Tree
	T1   time.Duration
	// Shape is the recorded tree's, before Fold; zero: Tree's.
	Shape TreeShape
}

// Question is what the advisor weighs: every option on every node count
// under every scheduler.
type Question struct {
	Nodes []int
	// Scheds are --sched values; none: every scheduler that moves work,
	// under its defaults (schedspec.Defaults).
	Scheds []string
	// Efficiency is the least efficiency at which more nodes are worth
	// having (0: DefaultEfficiency).
	Efficiency float64
}

// DefaultEfficiency is the least efficiency the advisor spends nodes at:
// past it, a node adds less than three quarters of itself.
const DefaultEfficiency = 0.75

// Prediction is the simulator's time for one configuration.
type Prediction struct {
	Grain      string  `json:"grain,omitempty"`
	Inline     string  `json:"inline"`
	Scheduler  string  `json:"scheduler"`
	Nodes      int     `json:"nodes"`
	Seconds    float64 `json:"seconds"`
	Efficiency float64 `json:"efficiency"`
	TasksMoved int64   `json:"tasks_moved"`
	Messages   int64   `json:"messages"`
}

// Advice is the advisor's answer: the configuration it recommends, with
// its predicted time and efficiency, the fastest it found, every
// prediction, and why, in a few lines.
type Advice struct {
	Recommended Prediction   `json:"recommended"`
	Fastest     Prediction   `json:"fastest"`
	Predictions []Prediction `json:"predictions"`
	Shape       TreeShape    `json:"tree"`
	// MinGrain is Siegell's least work between spawns for a task's cost
	// to stay under 1% of it; BalancePeriod the balancing period at the
	// recommended node count.
	MinGrain      time.Duration `json:"min_grain_ns"`
	BalancePeriod time.Duration `json:"balance_period_ns"`
	// MasterWorkerNodes is Cesar's optimum for the program split flat
	// among nodes once: an upper bound on the nodes worth having.
	MasterWorkerNodes float64  `json:"master_worker_nodes"`
	Reasons           []string `json:"reasons"`
}

// lendBytes are what a lent task and its result weigh on the wire, the
// simulator's defaults: the advisor has no program's argument to weigh.
var lendBytes = sim.Defaults().TaskBytes + sim.Defaults().ResultBytes

// Advise weighs every option of q on machine m in the simulator and says
// which to run.
func Advise(m Machine, opts []Option, q Question) (*Advice, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	if len(opts) == 0 {
		return nil, errors.New("no option to weigh: record the program at least once")
	}
	if len(q.Nodes) == 0 {
		return nil, errors.New("no node count to weigh")
	}
	for _, n := range q.Nodes {
		if n < 1 {
			return nil, fmt.Errorf("a node count of %d: want at least 1", n)
		}
	}
	if q.Efficiency <= 0 {
		q.Efficiency = DefaultEfficiency
	}
	if q.Efficiency > 1 {
		return nil, fmt.Errorf("an efficiency of %g: want a share up to 1", q.Efficiency)
	}
	scheds := q.Scheds
	if len(scheds) == 0 {
		scheds = schedspec.Defaults()
	}
	for _, s := range scheds {
		if _, err := schedspec.Parse(s); err != nil {
			return nil, err
		}
	}
	runs := plan(m, opts, q.Nodes, scheds)
	if err := simulate(runs); err != nil {
		return nil, err
	}
	// Efficiency is against the fastest option on one worker: a grain
	// that makes more work is charged for it.
	t1 := slices.MinFunc(opts, func(a, b Option) int { return cmpDuration(a.T1, b.T1) }).T1
	a := &Advice{MinGrain: seconds(MinGrain(m.Spawn.Seconds()))}
	for _, r := range runs {
		a.Predictions = append(a.Predictions, r.prediction(t1, m.Workers))
	}
	a.Fastest = slices.MinFunc(a.Predictions, func(x, y Prediction) int { return cmpFloat(x.Seconds, y.Seconds) })
	a.Recommended = recommend(a.Predictions, q.Efficiency)
	chosen := runs[slices.IndexFunc(runs, func(r *run) bool {
		return r.opt.Grain == a.Recommended.Grain && r.opt.Inline.String() == a.Recommended.Inline
	})].opt
	a.Shape = chosen.Shape
	if a.Shape.Tasks == 0 {
		a.Shape = Shape(chosen.Tree)
	}
	a.MasterWorkerNodes = MasterWorker{
		Startup: m.Startup.Seconds(),
		PerByte: m.PerByte / 1e9,
		Volume:  float64(a.Shape.Tasks * lendBytes),
		Compute: chosen.T1.Seconds() / float64(m.Workers),
	}.Optimum()
	a.BalancePeriod = balancePeriod(m, a.Recommended.Nodes)
	a.Reasons = reasons(m, a, *chosen, q.Efficiency)
	return a, nil
}

// run is one simulation of the plan.
type run struct {
	opt    *Option
	sched  string
	nodes  int
	cfg    sim.Config
	result *sim.Result
	err    error
}

func (r *run) prediction(t1 time.Duration, workers int) Prediction {
	sec := r.result.Makespan.Seconds()
	return Prediction{
		Grain: r.opt.Grain, Inline: r.opt.Inline.String(), Scheduler: r.sched, Nodes: r.nodes,
		Seconds: sec, Efficiency: t1.Seconds() / (float64(r.nodes*workers) * sec),
		TasksMoved: r.result.TasksMoved, Messages: r.result.Messages,
	}
}

// plan lists the simulations: one node of every option without a
// scheduler (none has work to move), and every larger count under every
// scheduler.
func plan(m Machine, opts []Option, nodes []int, scheds []string) []*run {
	var runs []*run
	for i := range opts {
		o := &opts[i]
		w, err := sim.NewReplay(o.Grain+" "+o.Inline.String(), o.Tree)
		for _, n := range nodes {
			for _, s := range scheds {
				if n == 1 && s != scheds[0] {
					continue
				}
				r := &run{opt: o, sched: s, nodes: n, err: err}
				if n == 1 {
					r.sched = "local"
				}
				r.cfg = sim.Config{Model: model(m, n, o.Inline), Workload: w, Seed: 1}
				if n > 1 {
					spec := s
					if schedspec.Takes(s, "cost") && !setsOption(s, "cost") {
						// The policy chooses its period by the cost of a
						// report, which the ping-pong measured.
						spec = withOption(s, "cost="+strconv.FormatFloat(float64(reportCost(m))/1e3, 'f', -1, 64)+"us")
						r.sched = spec
					}
					r.cfg.Sched, r.err = schedspec.Parse(spec)
				}
				runs = append(runs, r)
			}
		}
	}
	return runs
}

// model is the simulator's model of n nodes of this machine: a message
// costs what the ping-pong measured, split between its two ends' CPU and
// the wire as sim.Model.Overhead and Latency are; a node runs at its
// speed, less gossip's share on a cluster.
func model(m Machine, n int, pol inline.Policy) sim.Model {
	md := sim.Defaults()
	md.Nodes, md.Workers, md.Inline = n, m.Workers, pol
	md.Overhead = min(md.Overhead, m.Startup/2)
	md.Latency = m.Startup - 2*md.Overhead + m.Latency
	if m.PerByte > 0 {
		md.Bandwidth = 1e9 / m.PerByte
	}
	md.Spawn = m.Spawn
	speed := m.Speed
	if speed == 0 {
		speed = 1
	}
	if n > 1 {
		speed *= 1 - m.Gossip
	}
	md.Speed = slices.Repeat([]float64{speed}, n)
	return md
}

// simulate runs the plan on every core.
func simulate(runs []*run) error {
	next := make(chan *run)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				if r.err == nil {
					r.result, r.err = sim.Run(r.cfg)
				}
			}
		}()
	}
	for _, r := range runs {
		next <- r
	}
	close(next)
	wg.Wait()
	for _, r := range runs {
		if r.err != nil {
			return fmt.Errorf("simulating %s on %d nodes under %s: %w", r.opt.describe(), r.nodes, r.sched, r.err)
		}
	}
	return nil
}

func (o *Option) describe() string {
	if o.Grain != "" {
		return "grain " + o.Grain
	}
	return "--inline " + o.Inline.String()
}

// recommend picks the node count: the most nodes whose best
// configuration still runs at the efficiency asked for, or the fewest
// weighed when none does; then that count's fastest configuration.
func recommend(ps []Prediction, efficiency float64) Prediction {
	nodes := slices.MinFunc(ps, func(x, y Prediction) int { return x.Nodes - y.Nodes }).Nodes
	for _, p := range ps {
		if p.Efficiency >= efficiency && p.Nodes > nodes {
			nodes = p.Nodes
		}
	}
	var pick *Prediction
	for i := range ps {
		if p := &ps[i]; p.Nodes == nodes && (pick == nil || p.Seconds < pick.Seconds) {
			pick = p
		}
	}
	return *pick
}

// reportCost is what a status message costs each end's CPU: half its
// one-way time, which the ping-pong measured with both ends on one
// machine.
// It is rounded to a tenth of a microsecond, for the command line.
func reportCost(m Machine) time.Duration {
	return max((m.Startup / 2).Round(100*time.Nanosecond), 100*time.Nanosecond)
}

// balancePeriod is the period balancing chooses on n nodes at this
// machine's cost of a report.
func balancePeriod(m Machine, n int) time.Duration {
	return balance.Params{ReportCost: reportCost(m)}.PeriodFor(n - 1)
}

// reasons says in a few lines why the advice is what it is.
func reasons(m Machine, a *Advice, chosen Option, efficiency float64) []string {
	r := a.Recommended
	s := a.Shape
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	add("work T1 %v on one worker (%s), span %v: parallelism %.0f, so greedy scheduling bounds %d nodes of %d workers to %v",
		chosen.T1.Round(time.Millisecond), chosen.describe(), s.Span.Round(time.Microsecond), float64(s.Work)/float64(max(s.Span, 1)),
		r.Nodes, m.Workers, seconds(Greedy{Work: chosen.T1.Seconds(), Span: s.Span.Seconds()}.Upper(r.Nodes*m.Workers)).Round(time.Millisecond))
	add("tasks: %d recorded with inlining off, median %v, 90th percentile %v; a task costs %v more than a call, so Siegell's 1%% rule wants at least %v of work a task",
		s.Tasks, short(s.Median), short(s.P90), m.Spawn, short(a.MinGrain))
	add("a message costs %v + %.2f ns a byte one way; split flat once, Cesar's model would stop gaining at %.0f nodes",
		m.Startup.Round(time.Microsecond), m.PerByte, a.MasterWorkerNodes)
	add("%d nodes: the most whose predicted efficiency stays at %.0f%% or more (%.0f%%); the fastest found is %d nodes, %.3f s at %.0f%%",
		r.Nodes, 100*efficiency, 100*r.Efficiency, a.Fastest.Nodes, a.Fastest.Seconds, 100*a.Fastest.Efficiency)
	if r.Nodes > 1 {
		add("scheduler %s: the fastest at %d nodes in the simulator; balancing's period there is %v, so that a round of load reports costs at most 5%% of it", r.Scheduler, r.Nodes, short(a.BalancePeriod))
	}
	if m.Gossip > 0 {
		add("gossip takes %.2f%% of each node", 100*m.Gossip)
	}
	return out
}

// short rounds d to three figures or so, for people.
func short(d time.Duration) time.Duration {
	for unit := time.Duration(1); unit < time.Hour; unit *= 10 {
		if d < 1000*unit {
			return d.Round(unit)
		}
	}
	return d
}

func seconds(s float64) time.Duration {
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}

func cmpDuration(a, b time.Duration) int { return cmpFloat(float64(a), float64(b)) }

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
