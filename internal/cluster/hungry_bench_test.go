package cluster

import (
	"log/slog"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
)

// BenchmarkHungry is what an idle worker pays, at every round of its search
// for work, to tell a node's policy it is hungry when the policy's advice
// says nothing can come of it: with no peer (one atomic load), and with
// every peer backing off, in the engine of a job (a load and a clock read). The policy itself is
// not called in either case.
func BenchmarkHungry(b *testing.B) {
	for _, c := range []struct {
		name  string
		setup func(e *engine)
	}{
		{"no-peer", func(*engine) {}},
		{"peer-backing-off", func(e *engine) {
			e.event(func(now time.Time) []clusterpolicy.Action {
				e.policy.Membership(now, clusterpolicy.MemberEvent{Node: "p", Joined: true})
				e.policy.Hungry(now) // a request to p goes out (and nowhere)
				return nil
			})
			// p refuses: a backoff of an hour.
			e.event(func(now time.Time) []clusterpolicy.Action { return e.policy.StealReply(now, "p", 0) })
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			node, err := Start(Config{
				Workers: 1, Inline: inline.Default(), Fast: true, Logger: slog.New(slog.DiscardHandler),
				Policy: func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy {
					return fishing.New(self, zone, fishing.Params{RetryBackoff: time.Hour, MaxBackoff: time.Hour})
				},
			})
			if err != nil {
				b.Fatal(err)
			}
			defer node.Close()
			job, err := node.BeginJob(JobOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer node.EndJob(job)
			c.setup(job.e)
			b.ResetTimer()
			for range b.N {
				remote{job.e}.Hungry(true)
			}
		})
	}
}
