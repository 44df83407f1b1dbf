package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The files a benchmark writes into its folder, beside the plots.
const (
	RunsCSV    = "runs.csv"     // one row per run, every counter
	WorkersCSV = "workers.csv"  // one row per worker per run
	GoBench    = "bench.txt"    // Go benchmark format, for benchstat
	SummaryMD  = "summary.md"   // the table and the plots
	ResultJSON = "results.json" // the summaries, as tsys bench --json prints them
)

// WriteFolder writes every output of r into dir, creating it: the CSVs, the
// Go benchmark lines, the plots and the Markdown summary. It returns the
// summaries it wrote.
func WriteFolder(dir string, r *Results, command string) ([]Summary, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bench output folder: %w", err)
	}
	sums := r.Summarize()
	plots, err := WritePlots(dir, r, sums)
	if err != nil {
		return nil, err
	}
	writers := []struct {
		name  string
		write func(io.Writer) error
	}{
		{RunsCSV, func(w io.Writer) error { return WriteRunsCSV(w, r) }},
		{WorkersCSV, func(w io.Writer) error { return WriteWorkersCSV(w, r) }},
		{GoBench, func(w io.Writer) error { return WriteGoBench(w, r) }},
		{ResultJSON, func(w io.Writer) error { return WriteJSON(w, r, sums) }},
		{SummaryMD, func(w io.Writer) error { return WriteMarkdown(w, r, sums, Header{Command: command, Plots: plots}) }},
	}
	for _, wr := range writers {
		var buf bytes.Buffer
		if err := wr.write(&buf); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, wr.name), buf.Bytes(), 0o644); err != nil {
			return nil, fmt.Errorf("bench output: %w", err)
		}
	}
	return sums, nil
}

// WriteJSON writes the summaries as one JSON object: {"reps", "results"}.
func WriteJSON(w io.Writer, r *Results, sums []Summary) error {
	if err := json.NewEncoder(w).Encode(map[string]any{"reps": r.Matrix.Reps, "results": sums}); err != nil {
		return fmt.Errorf("writing the results as JSON: %w", err)
	}
	return nil
}

// blockMarkers are the lines around the block named name of a Markdown
// file, which UpdateReadme rewrites.
func blockMarkers(name string) (begin, end string) {
	return "<!-- tsys bench " + name + ": begin generated block -->", "<!-- tsys bench " + name + ": end generated block -->"
}

// UpdateReadme replaces the block named block of the Markdown file at path
// with the summary in dir: its table and its plots, linked relative to the
// file. The rest of the file (the prose and the decision log) stays.
func UpdateReadme(path, block, dir string, r *Results, sums []Summary, command string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("updating %s: %w", path, err)
	}
	text := string(old)
	readmeBegin, readmeEnd := blockMarkers(block)
	a, b := strings.Index(text, readmeBegin), strings.Index(text, readmeEnd)
	if a < 0 || b < a {
		return fmt.Errorf("updating %s: it has no block between %q and %q", path, readmeBegin, readmeEnd)
	}
	rel, err := filepath.Rel(filepath.Dir(path), dir)
	if err != nil {
		rel = dir
	}
	plots, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	var blk bytes.Buffer
	fmt.Fprintf(&blk, "%s\n\nGenerated %s by:\n\n    %s\n\n", readmeBegin, r.Started.UTC().Format("2006-01-02"), command)
	blk.WriteString(SummaryTable(sums))
	for _, p := range plots {
		name := filepath.Base(p)
		fmt.Fprintf(&blk, "\n![%s](%s)\n", strings.TrimSuffix(name, ".png"), filepath.ToSlash(filepath.Join(rel, name)))
	}
	fmt.Fprintf(&blk, "\nEvery run's counters: [%s](%s); for benchstat: [%s](%s).\n\n",
		RunsCSV, filepath.ToSlash(filepath.Join(rel, RunsCSV)), GoBench, filepath.ToSlash(filepath.Join(rel, GoBench)))
	text = text[:a] + blk.String() + text[b:]
	return os.WriteFile(path, []byte(text), 0o644)
}
