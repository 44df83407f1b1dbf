package tsys

import (
	"time"

	"github.com/tsys-go/tsys/internal/sched"
)

// SetChunkTarget sets the work an adaptive loop puts in a chunk, for
// BenchmarkLoopChunkTarget, and returns the old value. Not safe while a
// loop runs.
func SetChunkTarget(d time.Duration) time.Duration {
	old := chunkTarget
	chunkTarget = d
	return old
}

// CheckCopies is TSYS_CHECK_COPIES=1 as an option of New, for the tests
// of the check that would otherwise set the environment around each New.
func CheckCopies() Option { return checkCopies() }

// LoopWhyLocal is the reason a loop's pieces stay on their node, nil when
// they may cross: its task's (Task.WhyLocal).
func LoopWhyLocal[E, R any](l *Loop[E, R]) error { return l.task.WhyLocal() }

// Pool is the runtime's main pool, for the tests that look beneath a run.
func Pool(rt *Runtime) *sched.Pool { return rt.core().Main() }

// WorkerStats are the per-worker counters of the last run to end.
func WorkerStats(rt *Runtime) []Stats {
	ws := rt.core().Last().View().WorkerStats()
	out := make([]Stats, len(ws))
	for i, s := range ws {
		out[i] = Stats(s)
	}
	return out
}

// WorkSpan is the last run's work and span, with MeasureWorkSpan.
func WorkSpan(rt *Runtime) (work, span time.Duration) {
	var w int64
	p := rt.core().Last()
	for _, s := range p.View().WorkerStats() {
		w += s.WorkNanos
	}
	return time.Duration(w), p.View().Span()
}

// WorkersOf is how many workers rt has.
func WorkersOf(rt *Runtime) int { return rt.core().Workers() }

// NameOf is the name t was registered under.
func NameOf[A, R any](t *Task[A, R]) string { return t.kind.Name }

// AddStats sums b into a as the scheduler sums a run's workers' counters
// (MaxDeque and SpanNanos take the maximum).
func AddStats(a, b Stats) Stats {
	s := sched.Stats(a)
	s.Add(sched.Stats(b))
	return Stats(s)
}

// FastPath is c's fast path, the scheduler's, for the tests of the fork
// protocol.
func FastPath(c *Ctx) *sched.FastPath { return &c.fast }

// Factoring makes a loop cut the pieces it exposes by Cesar et al.'s
// factoring, for the tests and benchmarks that compare it with halving
// (the lab chooses it through package loopsplit).
var Factoring = LoopOption{func(p *plan) { p.Part = uint8(factoring) }}
