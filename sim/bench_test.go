package sim

import (
	"testing"

	"github.com/tsys-go/tsys/internal/schedspec"
)

// benchSim runs app under sched on nodes nodes of the default model, as
// `tsys sim --nodes N --sched S --app A` does, and reports the simulated
// makespan and the events handled.
func benchSim(b *testing.B, sched, app string, nodes int) {
	w, err := ParseWorkload(app)
	if err != nil {
		b.Fatal(err)
	}
	f, err := schedspec.Parse(sched)
	if err != nil {
		b.Fatal(err)
	}
	m := Defaults()
	m.Nodes = nodes
	for b.Loop() {
		r, err := Run(Config{Model: m, Workload: w, Sched: f, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.Makespan.Seconds(), "makespan-s")
		b.ReportMetric(float64(r.Events), "events")
	}
}

// BenchmarkBalance256: tsys sim's default job (EP, 2^20 leaves of 100 us)
// under balancing on 256 nodes, where every node reports to every other
// each period.
func BenchmarkBalance256(b *testing.B) { benchSim(b, "balance", "ep", 256) }

// BenchmarkBalance1024: the same job on 1,024 nodes, at the period the
// policy chooses for them (balance.Params.PeriodFor). At a fixed 5 ms the
// status messages alone would take each node's CPU several times over
// (Model.Overhead at each end of each of N-1 messages a period), its debt
// would outgrow the time that passes, and the run would end only when
// Config.Stall stops it.
func BenchmarkBalance1024(b *testing.B) { benchSim(b, "balance", "ep", 1024) }
