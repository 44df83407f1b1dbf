package bench

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tsys-go/tsys/internal/report"
)

// ProgressBar draws a one-line bar with an estimate of the time left, for
// a terminal: it rewrites its line with a carriage return, which in a pipe
// or a CI log would only be noise, so callers use it only on a terminal.
func ProgressBar(w io.Writer, now func() time.Time) Progress {
	start := now()
	return func(done, total int, cell Cell, rep *report.Report) {
		const width = 30
		filled := width * done / max(total, 1)
		elapsed := now().Sub(start)
		eta := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
		last := "failed"
		if rep != nil {
			last = fmt.Sprintf("%.3f s", rep.WallSeconds)
		}
		fmt.Fprintf(w, "\r[%s%s] %d/%d runs, %s left; %s %s\x1b[K",
			strings.Repeat("=", filled), strings.Repeat(" ", width-filled), done, total,
			eta.Round(time.Second), cell, last)
		if done == total {
			fmt.Fprintln(w)
		}
	}
}
