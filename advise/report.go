package advise

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is tsys advise's output, and its --json object.
type Report struct {
	App     string   `json:"app"`
	Args    []string `json:"args"`
	Workers int      `json:"workers"`
	// GrainFlag is the program's flag the options' grains are values of
	// ("" for a program tuned by its inlining threshold).
	GrainFlag string         `json:"grain_flag,omitempty"`
	Machine   Machine        `json:"machine"`
	Options   []OptionReport `json:"options"`
	Advice    *Advice        `json:"advice"`
	// Command runs the program as advised, on loopback: on a cluster,
	// start its nodes and replace --nodes with --join.
	Command string `json:"command"`
}

// OptionReport is one option as calibration measured it.
type OptionReport struct {
	Grain     string  `json:"grain,omitempty"`
	Inline    string  `json:"inline"`
	T1Seconds float64 `json:"t1_seconds"`
	Tasks     int     `json:"tasks"`
	Replayed  int     `json:"replayed_tasks"` // after folding
}

// WriteText writes r for people: the advice, why, the best configuration
// at each node count, and what calibration measured.
func (r *Report) WriteText(w io.Writer) {
	a := r.Advice
	p := a.Recommended
	fmt.Fprintf(w, "advice for %s on nodes of %d workers:\n", strings.TrimSpace(r.App+" "+strings.Join(r.Args, " ")), r.Workers)
	fmt.Fprintf(w, "  %d nodes, %s: predicted %.3f s at efficiency %.0f%%\n", p.Nodes, describePrediction(p), p.Seconds, 100*p.Efficiency)
	fmt.Fprintf(w, "  %s\n", r.Command)
	fmt.Fprint(w, "why:\n")
	for _, s := range a.Reasons {
		fmt.Fprintf(w, "  - %s\n", s)
	}
	fmt.Fprint(w, "the best configuration at each node count:\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tgrain\tinline\tscheduler\tpredicted s\tefficiency\t")
	for _, n := range nodeCountsOf(a.Predictions) {
		var best *Prediction
		for i := range a.Predictions {
			q := &a.Predictions[i]
			if q.Nodes == n && (best == nil || q.Seconds < best.Seconds) {
				best = q
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.3f\t%.0f%%\t\n", n, orDash(best.Grain), best.Inline, best.Scheduler, best.Seconds, 100*best.Efficiency)
	}
	tw.Flush()
	m := r.Machine
	fmt.Fprintf(w, "calibrated: message %v + %.2f ns/byte one way, tick %v, gossip %.2f%%, spawn %v\n",
		m.Startup.Round(time.Microsecond), m.PerByte, m.Tick, 100*m.Gossip, m.Spawn)
}

func describePrediction(p Prediction) string {
	s := "--inline " + p.Inline
	if p.Grain != "" {
		s = "grain " + p.Grain + ", " + s
	}
	if p.Nodes > 1 {
		s += ", --sched " + p.Scheduler
	}
	return s
}

func nodeCountsOf(ps []Prediction) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.Nodes)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
