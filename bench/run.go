package bench

import (
	"time"

	"github.com/tsys-go/tsys/internal/report"
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

// Failure is a run that failed: exited non-zero (a wrong answer, a crash,
// its --timeout) or printed no report.
type Failure struct {
	Cell int
	Rep  int // -1 for a warm-up run
	Seq  int
	Err  string
}

// Results are a benchmark's runs.
type Results struct {
	Matrix   Matrix
	Cells    []Cell
	Skipped  []Cell // cells whose load names a node their config lacks
	Samples  []Sample
	Failures []Failure
	Started  time.Time
	Elapsed  time.Duration
}

// failures returns the failures of one cell.
func (r *Results) failures(cell int) []Failure {
	var out []Failure
	for _, f := range r.Failures {
		if f.Cell == cell {
			out = append(out, f)
		}
	}
	return out
}

// Progress hears of each run as it starts and as it ends.
type Progress func(RunStep)

// RunStep is where a benchmark is: Done of Total runs have ended, and the
// run of Cell, repetition Rep of Reps (-1: its warm-up), starts now
// (Running) or has just ended, with Report (nil if it failed).
type RunStep struct {
	Done, Total int
	Cell        Cell
	Rep, Reps   int
	Running     bool
	Report      *report.Report
}

// Run runs the matrix in Schedule's order. A run that fails is recorded
// (Results.Failures), left out of its cell's medians and marked in every
// output, and the benchmark goes on: one bad cell does not throw away
// hours of others.
func Run(m Matrix, run Runner, progress Progress) *Results {
	cells, skipped := m.Cells()
	res := &Results{Matrix: m, Cells: cells, Skipped: skipped, Started: time.Now()}
	steps := m.Schedule(cells)
	for i, st := range steps {
		c := cells[st.Cell]
		if progress != nil {
			progress(RunStep{Done: i, Total: len(steps), Cell: c, Rep: st.Rep, Reps: m.Reps, Running: true})
		}
		rep, err := run(c.Args())
		if err != nil {
			res.Failures = append(res.Failures, Failure{Cell: st.Cell, Rep: st.Rep, Seq: i, Err: err.Error()})
		} else if st.Rep >= 0 {
			res.Samples = append(res.Samples, Sample{Cell: st.Cell, Rep: st.Rep, Seq: i, Report: rep})
		}
		if progress != nil {
			progress(RunStep{Done: i + 1, Total: len(steps), Cell: c, Rep: st.Rep, Reps: m.Reps, Report: rep})
		}
	}
	res.Elapsed = time.Since(res.Started)
	return res
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
