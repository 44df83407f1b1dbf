package monitor

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/promtest"
)

// grafanaDashboard is deploy/grafana/tsys.json as far as the test reads it.
type grafanaDashboard struct {
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// sendingNode is a node that has sent messages, so that /metrics has the
// families of messages by type.
type sendingNode struct{ fakeNode }

func (n *sendingNode) Snapshot() cluster.Snapshot {
	s := n.fakeNode.Snapshot()
	s.Sent = map[string]cluster.MessageCount{"push": {Messages: 3, Bytes: 300}}
	return s
}

// TestGrafanaDashboardQueriesExportedMetrics: every query of the Grafana
// dashboard names only metrics a node's /metrics has, as Prometheus's own
// text parser reads it, and it has a panel for each chart of the page.
func TestGrafanaDashboardQueriesExportedMetrics(t *testing.T) {
	b, err := os.ReadFile("../../deploy/grafana/tsys.json")
	if err != nil {
		t.Fatal(err)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("deploy/grafana/tsys.json: %v", err)
	}
	s, err := Start(Config{Addr: "127.0.0.1:0"}, &sendingNode{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	families := promtest.Families(t, "http://"+s.Addr()+"/metrics")
	queries := 0
	for _, p := range d.Panels {
		for _, target := range p.Targets {
			queries++
			names := metricNames(target.Expr)
			if len(names) == 0 {
				t.Errorf("panel %q: query %q names no metric", p.Title, target.Expr)
			}
			for _, name := range names {
				if families[name] == nil {
					t.Errorf("panel %q: query %q names %s, which /metrics does not export", p.Title, target.Expr, name)
				}
			}
		}
	}
	var titles []string
	for _, p := range d.Panels {
		titles = append(titles, strings.ToLower(p.Title))
	}
	for _, chart := range []string{"busy share", "tasks/s", "steals/s", "lent/s", "borrowed/s", "messages/s", "bytes/s sent", "go heap", "resident memory"} {
		if !slices.Contains(titles, chart) {
			t.Errorf("the Grafana dashboard has no panel %q, a chart of the page", chart)
		}
	}
	if queries < 9 {
		t.Errorf("%d queries, want one per panel at least", queries)
	}
}

// The parts of a PromQL expression that are not metric names: strings,
// label matchers, range and subquery durations, grouping label lists.
var (
	promStrings  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promMatchers = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?`)
	promKeywords = []string{"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "inf", "nan"}
)

// metricNames lists the metric names a PromQL expression selects: the
// identifiers left once strings, matchers, durations and grouping lists
// are cut, that are neither a function (followed by "(") nor a keyword.
// A tokenizer rather than Prometheus's own parser: that parser is in
// github.com/prometheus/prometheus, a module of the whole server, which
// this module does not otherwise need.
func metricNames(expr string) []string {
	e := promStrings.ReplaceAllString(expr, " ")
	e = promMatchers.ReplaceAllString(e, " ")
	e = promGrouping.ReplaceAllString(e, " ")
	var out []string
	for _, m := range promIdent.FindAllStringSubmatch(e, -1) {
		name := m[0]
		if m[1] != "" || slices.Contains(promKeywords, strings.ToLower(name)) {
			continue // a function or aggregation, or a keyword
		}
		out = append(out, name)
	}
	return out
}

// TestMetricNames: the tokenizer finds the metrics of a query and nothing
// else.
func TestMetricNames(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (node) (rate(tsys_busy_seconds_total{job="tsys"}[$__rate_interval])) / sum without (worker) (rate(tsys_idle_seconds_total[5m]))`: {"tsys_busy_seconds_total", "tsys_idle_seconds_total"},
		`process_resident_memory_bytes`:                     {"process_resident_memory_bytes"},
		`go_goroutines > bool 10 and on (instance) up == 1`: {"go_goroutines", "up"},
		`histogram_quantile(0.9, rate(x_bucket[1m]))`:       {"x_bucket"},
	} {
		if got := metricNames(expr); !slices.Equal(got, want) {
			t.Errorf("metricNames(%q) = %q, want %q", expr, got, want)
		}
	}
}
