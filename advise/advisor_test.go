package advise_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/advise"
	"github.com/tsys-go/tsys/inline"
)

var testMachine = advise.Machine{Workers: 1, Startup: 30 * time.Microsecond, PerByte: 1, Tick: time.Microsecond, Spawn: 100 * time.Nanosecond}

func option(grain string, n int, cost time.Duration) advise.Option {
	t := flat(n, cost)
	return advise.Option{Grain: grain, Inline: inline.Default(), Tree: t, T1: advise.Shape(t).Work}
}

// TestAdvise: 64 leaves of 10 ms spread well over 8 nodes, 4 leaves of
// 160 ms do not; the advisor takes the finer grain and the most nodes
// still at the efficiency asked for.
func TestAdvise(t *testing.T) {
	opts := []advise.Option{option("coarse", 4, 160*time.Millisecond), option("fine", 64, 10*time.Millisecond)}
	a, err := advise.Advise(testMachine, opts, advise.Question{Nodes: []int{1, 2, 4, 8, 64}, Scheds: []string{"fishing", "balance"}})
	if err != nil {
		t.Fatal(err)
	}
	// Per option: one node once, every other count under both.
	if len(a.Predictions) != 2*(1+4*2) {
		t.Fatalf("%d predictions", len(a.Predictions))
	}
	r := a.Recommended
	if r.Grain != "fine" || r.Nodes != 8 || r.Efficiency < advise.DefaultEfficiency {
		t.Fatalf("recommended %+v, want the fine grain on 8 nodes", r)
	}
	for _, p := range a.Predictions {
		if p.Nodes > r.Nodes && p.Efficiency >= advise.DefaultEfficiency {
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
	if a.Fastest.Seconds < 0.010 || r.Seconds > (advise.Greedy{Work: 0.640, Span: 0.010}).Upper(8)*1.2 {
		t.Errorf("fastest %.4f s, recommended %.4f s", a.Fastest.Seconds, r.Seconds)
	}
	if len(a.Reasons) < 4 || !strings.Contains(strings.Join(a.Reasons, "\n"), "8 nodes") {
		t.Errorf("reasons: %q", a.Reasons)
	}
}

// TestAdviseOneNode: work that no second node can speed up at the
// efficiency asked for stays on one.
func TestAdviseOneNode(t *testing.T) {
	a, err := advise.Advise(testMachine, []advise.Option{option("", 1, 50*time.Millisecond)}, advise.Question{Nodes: []int{1, 2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Recommended.Nodes != 1 || a.Recommended.Scheduler != "local" {
		t.Fatalf("recommended %+v for a single task", a.Recommended)
	}
	// Asked about 2 and 4 nodes only, neither efficient: the fewer.
	a, err = advise.Advise(testMachine, []advise.Option{option("", 1, 50*time.Millisecond)}, advise.Question{Nodes: []int{4, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Recommended.Nodes != 2 {
		t.Fatalf("recommended %+v of 2 and 4 nodes for a single task", a.Recommended)
	}
}

func TestAdviseBadInput(t *testing.T) {
	ok := []advise.Option{option("", 4, time.Millisecond)}
	for _, c := range []struct {
		m    advise.Machine
		opts []advise.Option
		q    advise.Question
		want string
	}{
		{testMachine, ok, advise.Question{Nodes: []int{0}}, "node count of 0"},
		{testMachine, ok, advise.Question{}, "no node count"},
		{testMachine, nil, advise.Question{Nodes: []int{1}}, "no option"},
		{testMachine, ok, advise.Question{Nodes: []int{2}, Scheds: []string{"juggling"}}, "juggling"},
		{testMachine, ok, advise.Question{Nodes: []int{2}, Efficiency: 2}, "efficiency of 2"},
		{advise.Machine{Workers: 1}, ok, advise.Question{Nodes: []int{2}}, "start-up cost"},
		{advise.Machine{Workers: 0, Startup: time.Microsecond}, ok, advise.Question{Nodes: []int{2}}, "0 workers"},
	} {
		_, err := advise.Advise(c.m, c.opts, c.q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("advise.Advise(%+v, %d options, %+v) = %v, want an error saying %q", c.m, len(c.opts), c.q, err, c.want)
		}
	}
}
