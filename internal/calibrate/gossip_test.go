package calibrate

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/net/membership"
)

// TestGossipCost checks the count against the timing membership gives
// memberlist, whatever its numbers are.
func TestGossipCost(t *testing.T) {
	const startup = 20 * time.Microsecond
	for _, cfg := range []membership.Config{{}, {Fast: true}, {ProbeInterval: 3 * time.Second}} {
		tm := cfg.Timing()
		for _, nodes := range []int{2, 8} {
			g, err := GossipCost(startup, cfg, nodes)
			if err != nil {
				t.Fatal(err)
			}
			want := 4/tm.ProbeInterval.Seconds() + 2*float64(min(tm.GossipNodes, nodes-1))/tm.GossipInterval.Seconds() + 4/tm.PushPullInterval.Seconds()
			if math.Abs(g.MessagesPerSecond-want) > 1e-9*want || math.Abs(g.CPUFraction-want*startup.Seconds()) > 1e-12 {
				t.Errorf("%+v, %d nodes: %+v; want %v messages a second", cfg, nodes, g, want)
			}
			if g.ProbeInterval != tm.ProbeInterval || g.GossipInterval != tm.GossipInterval || g.GossipNodes != tm.GossipNodes || g.PushPullInterval != tm.PushPullInterval {
				t.Errorf("%+v: timing %+v, want %+v", cfg, g, tm)
			}
		}
	}
	// Fast gossips more often than the LAN profile, so it costs more.
	lan, _ := GossipCost(startup, membership.Config{}, 8)
	fast, _ := GossipCost(startup, membership.Config{Fast: true}, 8)
	if fast.CPUFraction <= lan.CPUFraction {
		t.Errorf("Fast %v of a core, LAN %v: want Fast dearer", fast.CPUFraction, lan.CPUFraction)
	}
	if g, err := GossipCost(startup, membership.Config{}, 1); err != nil || g.MessagesPerSecond != 0 {
		t.Errorf("one node: %+v, %v; want no messages", g, err)
	}
	if _, err := GossipCost(startup, membership.Config{}, 0); err == nil || !strings.Contains(err.Error(), "0 nodes") {
		t.Errorf("0 nodes: %v", err)
	}
}
