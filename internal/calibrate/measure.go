package calibrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tsys-go/tsys/internal/net/membership"
)

// Costs are this machine's costs, as the advisor takes them.
type Costs struct {
	// Link is what a message between two nodes costs (PingPong).
	Link Link `json:"link"`
	// Tick is what a node's tick costs a job (TickCost).
	Tick Tick `json:"tick"`
	// Gossip is what memberlist's own traffic costs a node (GossipCost).
	Gossip Gossip `json:"gossip"`
	// Spawn is what a child costs spawned as a task rather than called
	// (SpawnCost).
	Spawn time.Duration `json:"spawn_ns"`
	// Given names the costs the user gave rather than Measure measured:
	// "link", "tick", "spawn".
	Given []string `json:"given,omitempty"`
}

// Options say what Measure measures and what it takes as given. The zero
// value measures everything with the defaults, for a cluster of
// DefaultNodes nodes gossiping with memberlist's LAN timing.
type Options struct {
	// Nodes is the cluster's size (0: DefaultNodes): the peers a policy
	// ticks through, and the nodes gossip runs among.
	Nodes int
	// Membership is the gossip configuration whose timing GossipCost
	// reads (Fast, ProbeInterval; the rest is ignored).
	Membership membership.Config
	// Ping configures PingPong (nil: DefaultPingConfig()).
	Ping *PingConfig
	// Tick configures TickCost (nil: DefaultTickConfig() with Nodes-1
	// peers).
	Tick *TickConfig

	// Fib is the recursive tree the spawn and tick measures run; it may
	// be nil only when Spawn and PerTick are both given.
	Fib Fib

	// Link, PerTick and Spawn are costs the user knows: each one given
	// is taken as it is, and its measure skipped. A given Link needs only
	// Startup and PerByte.
	Link    *Link
	PerTick *time.Duration
	Spawn   *time.Duration
}

// DefaultNodes is Options.Nodes's default: a small cluster.
const DefaultNodes = 8

// Measure measures the costs Options does not give, one after another
// (none disturbs another's CPU), and derives the gossip's cost from the
// link's start-up cost. It stops at the first failure, whose error says
// what failed and what to do.
func Measure(ctx context.Context, o Options) (Costs, error) {
	nodes := o.Nodes
	if nodes == 0 {
		nodes = DefaultNodes
	}
	if nodes < 1 {
		return Costs{}, fmt.Errorf("calibrate: Options.Nodes is %d: want 1 node or more (0: %d)", nodes, DefaultNodes)
	}
	if err := o.checkGiven(); err != nil {
		return Costs{}, err
	}
	var c Costs
	var err error

	if o.Spawn != nil {
		c.Spawn = *o.Spawn
		c.Given = append(c.Given, "spawn")
	} else if c.Spawn, err = SpawnCost(ctx, o.Fib); err != nil {
		return Costs{}, err
	}

	if o.PerTick != nil {
		c.Tick = tickOf(*o.PerTick)
		c.Given = append(c.Given, "tick")
	} else {
		cfg := DefaultTickConfig()
		cfg.Peers = nodes - 1
		if o.Tick != nil {
			cfg = *o.Tick
		}
		if c.Tick, err = TickCost(ctx, cfg, o.Fib); err != nil {
			return Costs{}, err
		}
	}

	if o.Link != nil {
		c.Link = Link{Startup: o.Link.Startup, PerByte: o.Link.PerByte, Keyed: o.Link.Keyed}
		c.Given = append(c.Given, "link")
	} else {
		cfg := DefaultPingConfig()
		if o.Ping != nil {
			cfg = *o.Ping
		}
		if c.Link, err = PingPong(ctx, cfg); err != nil {
			return Costs{}, err
		}
	}

	if c.Gossip, err = GossipCost(c.Link.Startup, o.Membership, nodes); err != nil {
		return Costs{}, err
	}
	return c, nil
}

// checkGiven says which given cost cannot be one, or nil: checked before
// anything is measured, so that a typo does not wait for a calibration.
func (o Options) checkGiven() error {
	bad := func(what string, v any) error {
		return fmt.Errorf("calibrate: a given %s of %v: want 0 or more", what, v)
	}
	switch {
	case o.Link != nil && o.Link.Startup < 0:
		return bad("start-up cost", o.Link.Startup)
	case o.Link != nil && !(o.Link.PerByte >= 0): // NaN too
		return bad("cost per byte", o.Link.PerByte)
	case o.PerTick != nil && *o.PerTick < 0:
		return bad("tick cost", *o.PerTick)
	case o.Spawn != nil && *o.Spawn < 0:
		return bad("spawn cost", *o.Spawn)
	case o.Fib == nil && (o.Spawn == nil || o.PerTick == nil):
		return errors.New(errNoFib)
	}
	return nil
}
