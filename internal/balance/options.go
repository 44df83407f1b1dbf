package balance

import (
	"strconv"

	"github.com/tsys-go/tsys/internal/opts"
)

// Options are what ParseParams reads, for help texts (package schedspec
// lists them under --sched balance) and for its own errors. Each default
// is the Params field's, written as ParseParams reads it.
var Options = []opts.Option{
	{Key: "limit", Value: "N", Default: strconv.Itoa(DefaultLimit), Help: "a node with fewer ready tasks than this receives one from each node that holds more"},
	{Key: "period", Value: "D", Help: "how often a node reports its load to every peer (default: " + DefaultPeriod.String() + ", or longer on a cluster so large that a round of reports would take more than 5% of it)"},
	{Key: "cost", Value: "D", Default: DefaultReportCost.String(), Help: "what a status message costs a node to send, and again to receive: what the chosen period weighs"},
}

// RateOptions are what ParseRateParams reads, as Options are for
// ParseParams.
var RateOptions = []opts.Option{
	{Key: "threshold", Value: "F", Default: strconv.FormatFloat(DefaultThreshold, 'g', -1, 64), Help: "the projected imbalance (the slowest node's finish over the balanced one, less one) below which no work moves"},
	{Key: "period", Value: "D", Default: DefaultMinPeriod.String(), Help: "the shortest balancing period; it grows to 20 moves of one task, up to " + DefaultMaxPeriod.String()},
	{Key: "movecost", Value: "D", Default: DefaultMoveCost.String(), Help: "what moving one task costs, until a move was seen"},
}
