package advise

import (
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/report"
)

// flatTree is a root that spawns n leaves of cost each.
func flatTree(n int, cost time.Duration) report.Tree {
	t := report.Tree{Parent: []int32{-1}, WorkNs: []int64{0}}
	for range n {
		t.Parent = append(t.Parent, 0)
		t.WorkNs = append(t.WorkNs, int64(cost))
	}
	return t
}

var testMachine = Machine{Workers: 1, Startup: 30 * time.Microsecond, PerByte: 1, Tick: time.Microsecond, Spawn: 100 * time.Nanosecond}

func option(grain string, n int, cost time.Duration) Option {
	t := flatTree(n, cost)
	return Option{Grain: grain, Inline: inline.Default(), Tree: t, T1: Shape(t).Work}
}

// TestAdvise: 64 leaves of 10 ms spread well over 8 nodes, 4 leaves of
// 160 ms do not; the advisor takes the finer grain and the most nodes
// still at the efficiency asked for.
func TestAdvise(t *testing.T) {
	opts := []Option{option("coarse", 4, 160*time.Millisecond), option("fine", 64, 10*time.Millisecond)}
	a, err := Advise(testMachine, opts, Question{Nodes: []int{1, 2, 4, 8, 64}, Scheds: []string{"fishing", "balance"}})
	if err != nil {
		t.Fatal(err)
	}
	// Per option: one node once, every other count under both.
	if len(a.Predictions) != 2*(1+4*2) {
		t.Fatalf("%d predictions", len(a.Predictions))
	}
	r := a.Recommended
	if r.Grain != "fine" || r.Nodes != 8 || r.Efficiency < DefaultEfficiency {
		t.Fatalf("recommended %+v, want the fine grain on 8 nodes", r)
	}
	for _, p := range a.Predictions {
		if p.Nodes > r.Nodes && p.Efficiency >= DefaultEfficiency {
			t.Errorf("%+v is efficient on more nodes than recommended", p)
		}
		if p.Nodes == r.Nodes && p.Seconds < r.Seconds {
			t.Errorf("%+v is faster on the recommended count", p)
		}
		if p.Seconds < a.Fastest.Seconds {
			t.Errorf("%+v is faster than the fastest, %+v", p, a.Fastest)
		}
	}
	// On 64 nodes 64 leaves of 10 ms take at least one leaf's time, and
	// greedy bounds the time on 8 nodes.
	if a.Fastest.Seconds < 0.010 || r.Seconds > (Greedy{Work: 0.640, Span: 0.010}).Upper(8)*1.2 {
		t.Errorf("fastest %.4f s, recommended %.4f s", a.Fastest.Seconds, r.Seconds)
	}
	if len(a.Reasons) < 4 || !strings.Contains(strings.Join(a.Reasons, "\n"), "8 nodes") {
		t.Errorf("reasons: %q", a.Reasons)
	}
}

// TestAdviseOneNode: work that no second node can speed up at the
// efficiency asked for stays on one.
func TestAdviseOneNode(t *testing.T) {
	a, err := Advise(testMachine, []Option{option("", 1, 50*time.Millisecond)}, Question{Nodes: []int{1, 2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Recommended.Nodes != 1 || a.Recommended.Scheduler != "local" {
		t.Fatalf("recommended %+v for a single task", a.Recommended)
	}
	// Asked about 2 and 4 nodes only, neither efficient: the fewer.
	a, err = Advise(testMachine, []Option{option("", 1, 50*time.Millisecond)}, Question{Nodes: []int{4, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Recommended.Nodes != 2 {
		t.Fatalf("recommended %+v of 2 and 4 nodes for a single task", a.Recommended)
	}
}

func TestAdviseBadInput(t *testing.T) {
	ok := []Option{option("", 4, time.Millisecond)}
	for _, c := range []struct {
		m    Machine
		opts []Option
		q    Question
		want string
	}{
		{testMachine, ok, Question{Nodes: []int{0}}, "node count of 0"},
		{testMachine, ok, Question{}, "no node count"},
		{testMachine, nil, Question{Nodes: []int{1}}, "no option"},
		{testMachine, ok, Question{Nodes: []int{2}, Scheds: []string{"juggling"}}, "juggling"},
		{testMachine, ok, Question{Nodes: []int{2}, Efficiency: 2}, "efficiency of 2"},
		{Machine{Workers: 1}, ok, Question{Nodes: []int{2}}, "start-up cost"},
		{Machine{Workers: 0, Startup: time.Microsecond}, ok, Question{Nodes: []int{2}}, "0 workers"},
	} {
		_, err := Advise(c.m, c.opts, c.q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Advise(%+v, %d options, %+v) = %v, want an error saying %q", c.m, len(c.opts), c.q, err, c.want)
		}
	}
}
