package schedspec

import (
	"slices"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/balance"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/opts"
)

// greedy stands for a new scheduler's package: its options, its parser
// and its constructor, as doc.go's example has them.
type greedyParams struct{ Batch int }

var greedyOptions = []opts.Option{{Key: "batch", Value: "N", Default: "4", Help: "tasks a node takes at a time"}}

func parseGreedy(s string) (greedyParams, error) {
	r, err := opts.Parse("greedy", s)
	if err != nil {
		return greedyParams{}, err
	}
	p := greedyParams{Batch: int(r.Int("batch", 4))}
	return p, r.Err(opts.Known(greedyOptions))
}

// greedyPolicy borrows balance's behaviour: what is tested is the table,
// not the policy.
type greedyPolicy struct {
	clusterpolicy.Policy
	p greedyParams
}

func (g *greedyPolicy) Name() string         { return "greedy" }
func (g *greedyPolicy) Params() greedyParams { return g.p }

func newGreedy(self clusterpolicy.NodeID, p greedyParams) *greedyPolicy {
	return &greedyPolicy{Policy: balance.New(self, balance.Params{}), p: p}
}

// TestAddScheduler: one line added to (a copy of) the table, and the
// parser takes the new scheduler and its options, refuses a bad one with
// its list, and the help, the list and the comparisons name it.
func TestAddScheduler(t *testing.T) {
	tbl := append(slices.Clone(schedulers),
		policy("greedy", "a node takes work in batches", greedyOptions, parseGreedy, noZone(newGreedy)))

	f, err := tbl.parse("greedy:batch=9")
	if err != nil || f.Name() != "greedy" || params(f) != (greedyParams{Batch: 9}) {
		t.Fatalf("parse(greedy:batch=9): %v, want the greedy policy with a batch of 9", err)
	}
	if _, err := tbl.parse("greedy:size=2"); err == nil || !strings.Contains(err.Error(), "batch=N") {
		t.Errorf("parse(greedy:size=2): %v, want an error offering batch=N", err)
	}
	if _, err := schedulers.parse("greedy"); err == nil {
		t.Error("the package's own table took greedy, which only the copy has")
	}
	h := tbl.help("scheduler:")
	if got := listed(h); !slices.Contains(got, "greedy") || len(got) != len(schedulers)+1 {
		t.Errorf("help lists %v, want the table's %d and greedy:\n%s", got, len(schedulers), h)
	}
	if !strings.Contains(h, "batch=N") || !strings.Contains(h, "a node takes work in batches") {
		t.Errorf("help leaves out greedy's line or its option:\n%s", h)
	}
	if _, err := tbl.parse("nosuch"); err == nil || !strings.Contains(err.Error(), "greedy[:OPTIONS]") {
		t.Errorf("parse(nosuch): %v, want it to offer greedy[:OPTIONS]", err)
	}
	if !slices.Contains(tbl.defaults(), "greedy") || !slices.Contains(tbl.sweep(), "greedy") || !strings.Contains(tbl.movers().list(), "greedy") {
		t.Errorf("defaults %v, sweep %v, movers %q: want greedy in each", tbl.defaults(), tbl.sweep(), tbl.movers().list())
	}
}
