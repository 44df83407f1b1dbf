package main

import (
	"fmt"
	"strings"

	"github.com/tsys-go/tsys/fishing"
	"github.com/tsys-go/tsys/sched"
)

// nodePolicy makes the scheduler policy of a node.
type nodePolicy func(self sched.NodeID, zone string, workers int) sched.Policy

// local adapts it for a runtime that is not part of a cluster.
func (p nodePolicy) local() func(int) sched.Policy {
	return func(w int) sched.Policy { return p("local", "", w) }
}

// parseScheduler reads --sched: local | fishing[:random|load|zone].
func parseScheduler(s string) (nodePolicy, error) {
	name, arg, _ := strings.Cut(s, ":")
	switch name {
	case "local":
		if arg != "" {
			return nil, fmt.Errorf("--sched local takes no option (got %q)", s)
		}
		return func(_ sched.NodeID, _ string, w int) sched.Policy { return sched.NewLocalStealer(w) }, nil
	case "fishing":
		p := fishing.DefaultParams()
		if arg != "" {
			v, err := fishing.ParseVictim(arg)
			if err != nil {
				return nil, fmt.Errorf("--sched %s: %w", s, err)
			}
			p.Victim = v
		}
		return func(self sched.NodeID, zone string, w int) sched.Policy { return fishing.New(self, zone, w, p) }, nil
	case "balance", "ratebalance":
		return nil, fmt.Errorf("--sched %s: the balancing schedulers are not built yet; use local or fishing[:random|load|zone]", name)
	}
	return nil, fmt.Errorf("unknown scheduler %q: want local or fishing[:random|load|zone]", s)
}
