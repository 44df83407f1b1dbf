package bench

import (
	"fmt"
	"time"

	"github.com/tsys-go/tsys/report"
)

// Runner runs `tsys run ARGS --json` once and returns its report. The
// command line starts a process per run; tests may do the same.
type Runner func(args []string) (*report.Report, error)

// Sample is one measured run of a cell.
type Sample struct {
	Cell   int // index into Results.Cells
	Rep    int
	Seq    int // its place in the order the runs went
	Report *report.Report
}

// Results are a benchmark's runs.
type Results struct {
	Matrix  Matrix
	Cells   []Cell
	Skipped []Cell // cells whose load names a node their config lacks
	Samples []Sample
	Started time.Time
	Elapsed time.Duration
}

// Progress hears of each run as it ends: done of total, and the last.
type Progress func(done, total int, cell Cell, rep *report.Report)

// Run runs the matrix in Schedule's order. A failed run ends the benchmark
// with an error naming the cell: its results would be missing from the
// medians.
func Run(m Matrix, run Runner, progress Progress) (*Results, error) {
	cells, skipped := m.Cells()
	res := &Results{Matrix: m, Cells: cells, Skipped: skipped, Started: time.Now()}
	steps := m.Schedule(cells)
	for i, st := range steps {
		c := cells[st.Cell]
		rep, err := run(c.Args())
		if err != nil {
			return nil, fmt.Errorf("bench %s: %w", c, err)
		}
		if st.Rep >= 0 {
			res.Samples = append(res.Samples, Sample{Cell: st.Cell, Rep: st.Rep, Seq: i, Report: rep})
		}
		if progress != nil {
			progress(i+1, len(steps), c, rep)
		}
	}
	res.Elapsed = time.Since(res.Started)
	return res, nil
}

// samples returns the reports of one cell, in the order they ran.
func (r *Results) samples(cell int) []*report.Report {
	var out []*report.Report
	for _, s := range r.Samples {
		if s.Cell == cell {
			out = append(out, s.Report)
		}
	}
	return out
}
