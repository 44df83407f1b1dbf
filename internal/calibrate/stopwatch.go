package calibrate

import (
	"time"

	"github.com/tsys-go/tsys/internal/cputime"
)

// stopwatch times a stretch of computation by the CPU time the process
// spent on it, where the platform tells (cputime.Process), else by the
// wall clock. On a shared machine the wall clock also counts the time
// other processes held the core; the CPU time counts only this process's
// work, which is what a cost of computation is. Nothing else of the
// process should run meanwhile: its CPU time would count too.
type stopwatch struct {
	wall time.Time
	cpu  time.Duration
	ok   bool
}

func startStopwatch() stopwatch {
	cpu, ok := cputime.Process()
	return stopwatch{wall: time.Now(), cpu: cpu, ok: ok}
}

// elapsed is the time spent since the stopwatch started.
func (s stopwatch) elapsed() time.Duration {
	if s.ok {
		if cpu, ok := cputime.Process(); ok {
			return cpu - s.cpu
		}
	}
	return time.Since(s.wall)
}
