package schedspec

import (
	"github.com/tsys-go/tsys/internal/balance"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
	"github.com/tsys-go/tsys/internal/opts"
)

// schedulers is the one list of schedulers: --sched's parser, every help
// text that names them (run, node, sim, bench, advise), the bench presets,
// calibration and the advisor read it. A new scheduler is its package and
// one line here (doc.go shows one).
var schedulers = table{
	{Name: "local", Help: "nodes move no work between them: each runs the tasks it makes (the default on one node)", parse: parseLocal},
	policy("fishing", "an idle node asks one peer at a time for tasks, and the peer lends some (work stealing across nodes, NewTS's Fishing)", fishing.Options, fishing.ParseParams, fishing.New).compare("load"),
	policy("balance", "nodes report their ready tasks; one below the limit receives a task from each that holds more (NewTS's balancing)", balance.Options, balance.ParseParams, noZone(balance.New)),
	policy("ratebalance", "nodes report their ready tasks and speed; work moves in proportion to speed, when the imbalance outweighs the move (Siegell and Steenkiste)", balance.RateOptions, balance.ParseRateParams, noZone(balance.NewRate)),
}

// Scheduler is one line of the table.
type Scheduler struct {
	// Name is what --sched starts with.
	Name string
	// Help says in one line how the scheduler moves work.
	Help string
	// Options are what may follow "NAME:", comma-separated.
	Options []opts.Option
	// Variants are option lists worth comparing to the defaults: a sweep
	// of schedulers (tsys bench's default) runs NAME:VARIANT too.
	Variants []string
	// parse reads the options into the scheduler's factory.
	parse func(options string) (Factory, error)
}

// MovesWork: the scheduler has a policy that moves tasks between nodes
// (every one but local).
func (s Scheduler) MovesWork() bool { return s.Name != "local" }

// policy makes the line of a scheduler from its package's parser and
// constructor, so that a line names them and nothing else.
func policy[P any, Pol clusterpolicy.Policy](name, help string, options []opts.Option,
	parse func(string) (P, error), build func(clusterpolicy.NodeID, string, P) Pol) Scheduler {
	return Scheduler{Name: name, Help: help, Options: options, parse: func(arg string) (Factory, error) {
		p, err := parse(arg)
		if err != nil {
			return nil, err
		}
		return func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy { return build(self, zone, p) }, nil
	}}
}

// compare adds variants to a line.
func (s Scheduler) compare(variants ...string) Scheduler {
	s.Variants = append(s.Variants, variants...)
	return s
}

// noZone fits a constructor that ignores the node's zone to policy.
func noZone[P, Pol any](build func(clusterpolicy.NodeID, P) Pol) func(clusterpolicy.NodeID, string, P) Pol {
	return func(self clusterpolicy.NodeID, _ string, p P) Pol { return build(self, p) }
}

// parseLocal: local takes no option, and makes no policy.
func parseLocal(arg string) (Factory, error) {
	if arg != "" {
		return nil, errNoOption
	}
	return nil, nil
}
