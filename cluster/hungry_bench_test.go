package cluster

import (
	"log/slog"
	"testing"
	"time"

	"github.com/tsys-go/tsys/fishing"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/sched"
)

// BenchmarkHungry is what an idle worker pays, at every round of its search
// for work, to tell a node's policy it is hungry when the policy's advice
// says nothing can come of it: with no peer (one atomic load), and with
// every peer backing off (a load and a clock read). The policy itself is
// not called in either case.
func BenchmarkHungry(b *testing.B) {
	for _, c := range []struct {
		name  string
		setup func(n *Node)
	}{
		{"no-peer", func(*Node) {}},
		{"peer-backing-off", func(n *Node) {
			n.event(func(now time.Time) []sched.Action {
				n.policy.Membership(now, sched.MemberEvent{Node: "p", Joined: true})
				n.policy.Hungry(now) // a request to p goes out (and nowhere)
				return nil
			})
			// p refuses: a backoff of an hour.
			n.event(func(now time.Time) []sched.Action { return n.policy.StealReply(now, "p", 0) })
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			node, err := Start(Config{
				Workers: 1, Inline: inline.Default(), Fast: true, Logger: slog.New(slog.DiscardHandler),
				Policy: func(self sched.NodeID, zone string) sched.Policy {
					return fishing.New(self, zone, fishing.Params{RetryBackoff: time.Hour, MaxBackoff: time.Hour})
				},
			})
			if err != nil {
				b.Fatal(err)
			}
			defer node.Close()
			c.setup(node)
			b.ResetTimer()
			for range b.N {
				node.Hungry()
			}
		})
	}
}
