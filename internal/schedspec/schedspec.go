package schedspec

import (
	"fmt"
	"strings"

	"github.com/tsys-go/tsys/internal/balance"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
)

// Factory makes the cluster scheduler policy of a node; nil for local,
// whose nodes move no work between them.
type Factory func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy

// Name is the scheduler's name as reports give it.
func (p Factory) Name() string {
	if p == nil {
		return "local"
	}
	return p("", "").Name()
}

// Parse reads --sched: local | fishing[:OPTIONS] (fishing.ParseParams) |
// balance[:OPTIONS] (balance.ParseParams) | ratebalance[:OPTIONS]
// (balance.ParseRateParams).
func Parse(s string) (Factory, error) {
	name, arg, _ := strings.Cut(s, ":")
	switch name {
	case "local":
		if arg != "" {
			return nil, fmt.Errorf("--sched local takes no option (got %q)", s)
		}
		return nil, nil
	case "fishing":
		p, err := fishing.ParseParams(arg)
		if err != nil {
			return nil, fmt.Errorf("--sched %s: %w", s, err)
		}
		return func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy { return fishing.New(self, zone, p) }, nil
	case "balance":
		p, err := balance.ParseParams(arg)
		if err != nil {
			return nil, fmt.Errorf("--sched %s: %w", s, err)
		}
		return func(self clusterpolicy.NodeID, _ string) clusterpolicy.Policy { return balance.New(self, p) }, nil
	case "ratebalance":
		p, err := balance.ParseRateParams(arg)
		if err != nil {
			return nil, fmt.Errorf("--sched %s: %w", s, err)
		}
		return func(self clusterpolicy.NodeID, _ string) clusterpolicy.Policy { return balance.NewRate(self, p) }, nil
	}
	return nil, fmt.Errorf("unknown scheduler %q: want local, fishing[:OPTIONS], balance[:limit=L,period=P,cost=C] or ratebalance[:OPTIONS]", s)
}
