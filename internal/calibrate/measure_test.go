package calibrate

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/net/membership"
)

func TestMeasure(t *testing.T) {
	checkNoLeak(t)
	c, err := Measure(context.Background(), Options{Nodes: 4, Membership: membership.Config{Fast: true}, Fib: forking})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	t.Logf("%s", b)
	if c.Link.Startup <= 0 || c.Link.Startup >= time.Second || c.Link.PerByte < 0 || len(c.Link.Sizes) == 0 {
		t.Errorf("link: %+v", c.Link)
	}
	if c.Tick.PerTick <= 0 || c.Tick.Peers != 3 {
		t.Errorf("tick: %+v, want a cost and the 3 peers of 4 nodes", c.Tick)
	}
	if c.Spawn <= 0 {
		t.Errorf("spawn: %v", c.Spawn)
	}
	fast := membership.Config{Fast: true}.Timing()
	if c.Gossip.Nodes != 4 || c.Gossip.GossipInterval != fast.GossipInterval || c.Gossip.CPUFraction <= 0 {
		t.Errorf("gossip: %+v, want 4 nodes with Fast timing", c.Gossip)
	}
	if c.Given != nil {
		t.Errorf("Given %v: nothing was given", c.Given)
	}
	for _, key := range []string{`"startup_ns"`, `"per_byte_ns"`, `"median_ns"`, `"per_tick_ns"`, `"cpu_fraction"`, `"messages_per_second"`, `"spawn_ns"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("the JSON has no %s", key)
		}
	}
}

// TestMeasureTakesWhatIsGiven: given costs are not measured (a given link
// sends nothing, so no transport starts), and the gossip follows the
// given start-up cost.
func TestMeasureTakesWhatIsGiven(t *testing.T) {
	spawn, tick := 40*time.Nanosecond, 3*time.Microsecond
	link := Link{Startup: 50 * time.Microsecond, PerByte: 1.5}
	c, err := Measure(context.Background(), Options{Link: &link, PerTick: &tick, Spawn: &spawn})
	if err != nil {
		t.Fatal(err)
	}
	if c.Link.Startup != link.Startup || c.Link.PerByte != link.PerByte || c.Link.Sizes != nil || c.Tick.PerTick != tick || c.Spawn != spawn {
		t.Errorf("%+v: want the given costs", c)
	}
	if !slices.Equal(c.Given, []string{"spawn", "tick", "link"}) {
		t.Errorf("Given %v", c.Given)
	}
	want, _ := GossipCost(link.Startup, membership.Config{}, DefaultNodes)
	if c.Gossip != want {
		t.Errorf("gossip %+v, want %+v", c.Gossip, want)
	}
	if c.Tick.CPUFraction != float64(tick)/float64(c.Tick.Every) {
		t.Errorf("tick %+v", c.Tick)
	}
}

func TestMeasureRefuses(t *testing.T) {
	neg := -time.Nanosecond
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Nodes: -1}, "Nodes is -1"},
		{Options{Spawn: &neg}, "given spawn cost of -1ns"},
		{Options{PerTick: &neg}, "given tick cost of -1ns"},
		{Options{Link: &Link{Startup: -1}}, "given start-up cost of -1ns"},
		{Options{Link: &Link{PerByte: -1}}, "given cost per byte of -1 ns/B"},
		{Options{Ping: &PingConfig{}, Spawn: new(time.Duration), PerTick: new(time.Duration)}, "Rounds is 0"},
		{Options{}, "no Fib to run"},
		{Options{Spawn: new(time.Duration), Fib: nil}, "no Fib to run"},
	} {
		if _, err := Measure(context.Background(), c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error with %q", c.o, err, c.want)
		}
	}
}

func TestMeasureCancelled(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Measure(ctx, Options{Fib: forking})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "while measuring the spawn cost") {
		t.Errorf("got %v, want a cancellation that names the spawn cost", err)
	}
	spawn, tick := time.Duration(1), time.Duration(1)
	_, err = Measure(ctx, Options{Spawn: &spawn, PerTick: &tick})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "ping-pong") {
		t.Errorf("got %v, want a cancellation that names the ping-pong", err)
	}
}
