package cluster

import (
	"math"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// The load a node gossips. Gossip carries a load only when its encoding
// changes (membership), but a busy node's rate jitters in its last digits
// on every measurement, so every 100 ms each node would re-gossip, and
// each peer would decode, re-broadcast and hand to its policies a load
// that says nothing new: that is most of what a node serving a job whose
// work is all elsewhere spends (bench/README.md, "An idle node"). The
// ready, worker and idle counts go out as they are; the rate only once it
// has moved by rateSlack. The policies that weigh rates (ratebalance)
// hear them exact in their own reports.

// rateSlack is the move of a node's rate, as a share of it or in workers
// for a rate under one, below which the rate last gossiped stands.
const rateSlack = 0.1

// steadyLoad is l to gossip, given the load last gossiped: l, with the
// rate last gossiped when l's is within rateSlack of it. A rate under a
// tenth of the slack goes out as 0, so that an idle node's decaying rate
// ends at 0 rather than where it last moved.
func steadyLoad(l, last clusterpolicy.Load) clusterpolicy.Load {
	switch {
	case l.Rate < rateSlack/10:
		l.Rate = 0
	case math.Abs(l.Rate-last.Rate) <= rateSlack*max(last.Rate, 1):
		l.Rate = last.Rate
	}
	return l
}
