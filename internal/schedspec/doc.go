// Package schedspec holds the one list of cluster schedulers (table.go)
// and reads the command line's names for them (--sched NAME[:OPTIONS])
// into the policies of their packages (fishing, balance). The runtime's
// nodes (package cluster, through cli) and the simulator (package sim)
// build their policies here, so that both run the same code from the same
// spelling; every help text that names the schedulers (Help), the bench
// presets and tsys bench's sweep (Defaults, Sweep), calibration (Movers)
// and the advisor read the same list, so none can name a scheduler the
// parser refuses or leave out one it takes.
//
// # Adding a scheduler
//
// A scheduler is a package that implements clusterpolicy.Policy and
// declares, next to its parser, the options the parser reads:
//
//	package greedy
//
//	var Options = []opts.Option{{Key: "batch", Value: "N", Default: "4", Help: "tasks a node takes at a time"}}
//
//	type Params struct{ Batch int }
//
//	type Policy struct{ p Params } // implements clusterpolicy.Policy
//
//	func ParseParams(s string) (Params, error) { ... } // reads "batch=9", offering opts.Known(Options) for a key it lacks
//	func New(self clusterpolicy.NodeID, p Params) *Policy { ... }
//
// and one line of the table:
//
//	policy("greedy", "a node takes work in batches", greedy.Options, greedy.ParseParams, noZone(greedy.New)),
//
// (noZone fits a constructor that has no use for the node's zone, as
// balance's; fishing.New takes the zone and fits as it is). That line
// makes --sched greedy[:batch=N] work in tsys run, node, sim, bench and
// advise, lists it in their -h, and adds it to the benchmark's default
// sweep and the advisor's comparison. TestAddScheduler does just this to
// a copy of the table; TestOptionsMatchParsers holds every listed option
// and default to its parser.
package schedspec
