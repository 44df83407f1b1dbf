package advise

import (
	"math"
	"testing"
)

// paper is the check of Cesar et al. (KNOWLEDGE.md §3), in seconds: mo = 1
// ms, k = 0.001 ms/byte, V = 4096 B, Tc = 1600 ms, lm = 0.
var paper = MasterWorker{Startup: 1e-3, PerByte: 1e-6, Volume: 4096, Compute: 1.6}

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

// TestMasterWorkerReproducesThePaper: Tt(23) = 93.7433 ms, Tt(40) =
// 81.1024 ms, the fastest count is 40 and the thriftiest 23.
func TestMasterWorkerReproducesThePaper(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{23, 0.0937433}, {40, 0.0811024}} {
		// The paper rounds to 0.1 µs.
		if got := paper.Time(c.n); math.Abs(got-c.want) > 0.5e-7 {
			t.Errorf("Tt(%d) = %.7f s; want %.7f", c.n, got, c.want)
		}
	}
	if got := paper.FastestWorkers(1000); got != 40 {
		t.Errorf("argmin Tt = %d; want 40", got)
	}
	if got := paper.ThriftiestWorkers(1000); got != 23 {
		t.Errorf("argmin Pi = %d; want 23", got)
	}
	if got := paper.Optimum(); !near(got, math.Sqrt(1604.096)) {
		t.Errorf("optimum %v; want sqrt(1604.096)", got)
	}
	if got := paper.Efficiency(40); !near(got, 1.6/(40*paper.Time(40))) || got >= 1 {
		t.Errorf("E(40) = %v", got)
	}
	if got := (MasterWorker{Compute: 1}).Optimum(); !math.IsInf(got, 1) {
		t.Errorf("optimum with free messages %v; want +Inf", got)
	}
}

// TestFastestIsNearTheOptimum: for random costs the integer argmin of Tt
// is the floor or the ceiling of the real optimum.
func TestFastestIsNearTheOptimum(t *testing.T) {
	for i := 1; i < 200; i++ {
		m := MasterWorker{Startup: 1e-4 * float64(i%7+1), PerByte: 1e-8 * float64(i%5), Volume: float64(i * 100), Compute: 0.01 * float64(i)}
		got, opt := m.FastestWorkers(100000), m.Optimum()
		if float64(got) != math.Floor(opt) && float64(got) != math.Ceil(opt) && !(got == 1 && opt < 1) {
			t.Fatalf("%+v: argmin %d, optimum %v", m, got, opt)
		}
	}
}

// TestSiegellRules: the period is the largest of its three bounds, and a
// hook's grain is 100 times its cost.
func TestSiegellRules(t *testing.T) {
	for _, c := range []struct {
		interaction, move, rate, quantum, want float64
	}{
		{1e-3, 0, 0, 1e-3, 0.02},     // the messages: 1 ms is 5% of 20 ms
		{1e-4, 0, 0, 4e-3, 0.04},     // ten quanta of 4 ms
		{1e-4, 10, 100, 1e-3, 0.1},   // a move worth 10 s of work at 100/s
		{1e-4, 10, 0, 1e-3, 0.01},    // no rate yet: the move cost cannot say
		{5e-3, 1e-3, 1e6, 1e-3, 0.1}, // the messages again
	} {
		if got := BalancePeriod(c.interaction, c.move, c.rate, c.quantum); !near(got, c.want) {
			t.Errorf("BalancePeriod(%v, %v, %v, %v) = %v; want %v", c.interaction, c.move, c.rate, c.quantum, got, c.want)
		}
	}
	if got := MinGrain(40e-9); !near(got, 4e-6) {
		t.Errorf("MinGrain(40 ns) = %v; want 4 µs", got)
	}
}

// TestGreedyBounds: the lower bound never exceeds the upper, and both meet
// T1 on one worker plus the span.
func TestGreedyBounds(t *testing.T) {
	g := Greedy{Work: 10, Span: 0.5}
	if g.Upper(1) != 10.5 || g.Lower(1) != 10 || g.Parallelism() != 20 {
		t.Errorf("%+v: upper(1) %v lower(1) %v parallelism %v", g, g.Upper(1), g.Lower(1), g.Parallelism())
	}
	for p := 1; p <= 64; p++ {
		if g.Lower(p) > g.Upper(p) {
			t.Fatalf("p=%d: lower %v above upper %v", p, g.Lower(p), g.Upper(p))
		}
	}
	if g.Lower(40) != 0.5 {
		t.Errorf("lower(40) = %v; want the span", g.Lower(40))
	}
}
