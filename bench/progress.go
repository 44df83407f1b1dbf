package bench

import (
	"fmt"
	"io"
	"time"

	"github.com/tsys-go/tsys/internal/statusline"
)

// ProgressBar draws a one-line status, for a terminal (statusline): how
// many runs have ended, the run going on (its cell and repetition), an
// estimate of the time left, and the last run's time.
func ProgressBar(w io.Writer, now func() time.Time) Progress {
	start := now()
	line := statusline.New(w)
	last := ""
	return func(s RunStep) {
		if !s.Running {
			last = "; last failed"
			if s.Report != nil {
				last = fmt.Sprintf("; last %.3f s", s.Report.WallSeconds)
			}
			if s.Done == s.Total {
				line.Show(fmt.Sprintf("%s %d/%d runs in %s%s", statusline.Bar(int64(s.Done), int64(s.Total), 30), s.Done, s.Total, now().Sub(start).Round(time.Second), last))
				line.Done()
			}
			return
		}
		left := "time left unknown"
		if s.Done > 0 {
			elapsed := now().Sub(start)
			left = time.Duration(float64(elapsed)/float64(s.Done)*float64(s.Total-s.Done)).Round(time.Second).String() + " left"
		}
		rep := "warm-up"
		if s.Rep >= 0 {
			rep = fmt.Sprintf("rep %d/%d", s.Rep+1, s.Reps)
		}
		line.Show(fmt.Sprintf("%s %d/%d runs, %s; run %d: %s, %s%s",
			statusline.Bar(int64(s.Done), int64(s.Total), 30), s.Done, s.Total, left, s.Done+1, s.Cell, rep, last))
	}
}
