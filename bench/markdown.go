package bench

import (
	"fmt"
	"io"
	"runtime"
	"strings"
)

// Header describes a benchmark for its summary: the command that ran it,
// so that anyone can run it again.
type Header struct {
	Command string
	Plots   []string // file names of the plots, relative to the summary
}

// WriteMarkdown writes the summary: one table row per cell, medians with
// their spread, and the plots.
func WriteMarkdown(w io.Writer, r *Results, sums []Summary, h Header) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# tsys bench, %s\n\n", r.Started.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(b, "%d runs (%d repetitions of %d cells, warm-up %d per job) in %s on %s/%s with %d CPUs. Regenerate:\n\n",
		len(r.Samples), r.Matrix.Reps, len(r.Cells), r.Matrix.Warmup, r.Elapsed.Round(1e9), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Fprintf(b, "    %s\n\n", h.Command)
	b.WriteString(SummaryTable(sums))
	if len(r.Skipped) > 0 {
		fmt.Fprintf(b, "\nLeft out, their load naming a node the config lacks: %d cells (e.g. %s).\n", len(r.Skipped), r.Skipped[0])
	}
	if len(r.Failures) > 0 {
		fmt.Fprintf(b, "\n**%d runs failed**; their cells' medians are of the others:\n\n", len(r.Failures))
		for _, f := range r.Failures {
			fmt.Fprintf(b, "- run %d, %s: %s\n", f.Seq, r.Cells[f.Cell], strings.ReplaceAll(f.Err, "\n", " "))
		}
	}
	b.WriteString("\nTimes are medians with the fastest and slowest run; E_N = T_1/(N T_N), T_1 on one node of as many workers; " +
		"\"moved\" counts the tasks that crossed nodes, \"status\" the balancing schedulers' load reports; " +
		"the steal ratio is the share of tasks run that another worker or node took; idle is the workers' idle share; " +
		"a run that fails (a wrong answer, a crash, its --timeout) is counted in \"verified\" and listed; \"not checked\" marks jobs run without their check.\n")
	for _, p := range h.Plots {
		fmt.Fprintf(b, "\n![%s](%s)\n", strings.TrimSuffix(p, ".png"), p)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing the summary: %w", err)
	}
	return nil
}

// SummaryTable is the Markdown table of the cells.
func SummaryTable(sums []Summary) string {
	b := &strings.Builder{}
	b.WriteString("| app | load | config | median s | min-max s | E_N | vs 1x1 | vs serial | moved | messages | status | bytes | steal | inline | idle | verified |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range sums {
		fmt.Fprintf(b, "| %s | %s | %s | %.3f | %.3f-%.3f | %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.1f%% | %.1f%% | %.0f%% | %v |\n",
			s.App, s.LoadName, s.Config, s.Median, s.Min, s.Max, Ratio(s.NodeEfficiency), Ratio(s.Speedup), Ratio(s.VsSerial),
			s.TasksSent, s.Messages, s.StatusSent, s.BytesSent, 100*s.StealRatio, 100*s.InlineRatio, 100*s.IdleShare, verifiedText(s))
	}
	return b.String()
}

// verifiedText says what a cell's verified flag means in a benchmark: a
// wrong answer fails the run, which the cell reports as failed, so false
// otherwise only means the job was run without its check (rt
// --verify=false, to time the render alone).
func verifiedText(s Summary) string {
	switch {
	case s.Failed > 0:
		return fmt.Sprintf("**%d failed**", s.Failed)
	case s.Verified:
		return "yes"
	}
	return "not checked"
}

// Ratio prints x with two decimals, or "-" when there is no baseline.
func Ratio(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}
