package calibrate

import (
	"fmt"
	"time"

	"github.com/tsys-go/tsys/internal/net/membership"
)

// Gossip is what memberlist's own traffic costs a node: the messages it
// sends and receives per second, from the timing tsys gives memberlist
// (membership.Config.Timing), and the share of a core they take at a
// message's start-up cost.
type Gossip struct {
	Nodes            int           `json:"nodes"`
	ProbeInterval    time.Duration `json:"probe_interval_ns"`
	GossipInterval   time.Duration `json:"gossip_interval_ns"`
	GossipNodes      int           `json:"gossip_nodes"`
	PushPullInterval time.Duration `json:"push_pull_interval_ns"`
	// MessagesPerSecond counts what one node sends and receives.
	MessagesPerSecond float64 `json:"messages_per_second"`
	// CPUFraction is MessagesPerSecond x the start-up cost: the share of
	// a core gossip takes.
	CPUFraction float64 `json:"cpu_fraction"`
}

// GossipCost estimates what memberlist's own traffic costs each node of a
// cluster of nodes nodes that gossips with cfg's timing, at startup per
// message (Link.Startup). Per node and second, with t = cfg.Timing() and
// n = nodes:
//
//   - probes: every t.ProbeInterval a node pings one other and reads its
//     ack, and is pinged by one other on average and acks: 4 messages;
//   - gossip: every t.GossipInterval a node sends what it has to spread to
//     min(t.GossipNodes, n-1) others, and receives as many on average;
//   - push/pull: every t.PushPullInterval a node syncs its state with one
//     other, and one other with it: a request and a reply each, 4
//     messages.
//
// Gossip is sent only while there is something to spread. During a job
// there always is, as every node gossips its load every 100 ms, so this
// is the cost during a job, and an upper bound when idle. Past 32 nodes
// memberlist stretches the push/pull interval, so the figure is an upper
// bound there too. A message of memberlist is a UDP packet or a short TCP
// exchange rather than a transport frame, but both are a small message's
// trip through the kernel and two processes, which is what Startup
// measures.
func GossipCost(startup time.Duration, cfg membership.Config, nodes int) (Gossip, error) {
	if nodes < 1 {
		return Gossip{}, fmt.Errorf("calibrate: gossip among %d nodes: want 1 node at least", nodes)
	}
	if startup < 0 {
		return Gossip{}, fmt.Errorf("calibrate: a start-up cost of %v: want 0 or more", startup)
	}
	t := cfg.Timing()
	g := Gossip{Nodes: nodes, ProbeInterval: t.ProbeInterval, GossipInterval: t.GossipInterval,
		GossipNodes: t.GossipNodes, PushPullInterval: t.PushPullInterval}
	if nodes == 1 {
		return g, nil // nobody to probe or gossip to
	}
	perSecond := func(d time.Duration) float64 {
		if d <= 0 {
			return 0 // memberlist's 0: that traffic is off
		}
		return float64(time.Second) / float64(d)
	}
	g.MessagesPerSecond = 4*perSecond(t.ProbeInterval) +
		2*float64(min(t.GossipNodes, nodes-1))*perSecond(t.GossipInterval) +
		4*perSecond(t.PushPullInterval)
	g.CPUFraction = g.MessagesPerSecond * startup.Seconds()
	return g, nil
}
