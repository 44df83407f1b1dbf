package bench

import (
	"fmt"
	"io"
	"runtime"
	"strings"
)

// WriteGoBench writes the runs in Go's benchmark format, one line per run,
// so that benchstat compares two result folders with confidence intervals:
//
//	benchstat old/bench.txt new/bench.txt
//
// A cell's name is BenchmarkTsys/app=.../config=.../load=..., with spaces
// and slashes inside a value replaced.
func WriteGoBench(w io.Writer, r *Results) error {
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/tsys-go/tsys/bench\n", runtime.GOOS, runtime.GOARCH)
	for _, s := range r.Samples {
		c, rep := r.Cells[s.Cell], s.Report
		st := rep.Stats
		_, err := fmt.Fprintf(w, "BenchmarkTsys/app=%s/config=%s/load=%s 1 %.0f ns/op %d tasks-moved/op %d messages/op %d status-messages/op %d bytes/op %.4f steal-ratio %.4f inline-ratio %.4f idle-share\n",
			benchKey(c.Job.String()), benchKey(c.Config.String()), benchKey(c.Load.String()),
			rep.WallSeconds*1e9, st.TasksSent, st.MessagesSent, st.StatusSent, st.BytesSent,
			st.StealRatio(), st.InlineRatio(), rep.IdleShare())
		if err != nil {
			return fmt.Errorf("writing bench.txt: %w", err)
		}
	}
	// A failed run has no figures; benchstat skips a line that is neither
	// a result nor a configuration, so it reads the rest unchanged.
	for _, f := range r.Failures {
		c := r.Cells[f.Cell]
		if _, err := fmt.Fprintf(w, "# failed run %d: BenchmarkTsys/app=%s/config=%s/load=%s: %s\n", f.Seq,
			benchKey(c.Job.String()), benchKey(c.Config.String()), benchKey(c.Load.String()), strings.ReplaceAll(f.Err, "\n", " ")); err != nil {
			return fmt.Errorf("writing bench.txt: %w", err)
		}
	}
	return nil
}

// benchKey makes a value safe inside a benchmark name: no spaces (they end
// the name) and no slashes (they start a sub-benchmark).
func benchKey(s string) string {
	return strings.NewReplacer(" ", "_", "/", "~").Replace(s)
}
