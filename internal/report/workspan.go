package report

import "time"

// WorkSpan is what Cilkscale reports of a run (tsys run --workspan): the
// work T_1, the time all task frames computed; the span T_inf, the longest
// chain of computation through the task graph; the parallelism T_1/T_inf,
// beyond which more workers cannot help; and the greedy scheduler's bound
// T_1/P + T_inf on P workers, to set beside the time measured.
type WorkSpan struct {
	WorkSeconds        float64 `json:"work_seconds"`
	SpanSeconds        float64 `json:"span_seconds"`
	Parallelism        float64 `json:"parallelism"`
	Processors         int     `json:"processors"`
	GreedyBoundSeconds float64 `json:"greedy_bound_seconds"`
}

// NewWorkSpan derives the ratios from a run's work and span on p workers.
func NewWorkSpan(work, span time.Duration, p int, wall float64) *WorkSpan {
	ws := &WorkSpan{WorkSeconds: work.Seconds(), SpanSeconds: span.Seconds(), Processors: p}
	if span > 0 {
		ws.Parallelism = ws.WorkSeconds / ws.SpanSeconds
	}
	ws.GreedyBoundSeconds = ws.WorkSeconds/float64(max(p, 1)) + ws.SpanSeconds
	return ws
}
