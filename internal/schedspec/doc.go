// Package schedspec reads the scheduler names of the command line (--sched
// local | fishing[:OPTIONS] | balance[:OPTIONS] | ratebalance[:OPTIONS])
// into the cluster policies of packages fishing and balance. The runtime's
// nodes (package cluster, through cmd/tsys) and the simulator (package
// sim) build their policies here, so that both run the same code from the
// same spelling.
package schedspec
