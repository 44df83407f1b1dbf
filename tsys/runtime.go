package tsys

import (
	"context"
	"runtime"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/sched"
)

// Stats are the runtime's counters for one run (see sched.Stats).
type Stats = sched.Stats

// TaskPanic is the error of a run in which a task panicked; it names the
// task and carries the stack.
type TaskPanic = sched.TaskPanic

// Runtime runs jobs on a set of workers. It is reusable: Run may be called
// again after a run ends, failed or not. Between runs it holds no goroutine.
type Runtime struct {
	pool   *sched.Pool
	inline inline.Policy
}

// Option configures a Runtime.
type Option func(*config)

type config struct {
	workers  int
	inline   inline.Policy
	workSpan bool
}

// Workers sets the number of workers (default: GOMAXPROCS).
func Workers(n int) Option { return func(c *config) { c.workers = n } }

// Inline sets the inlining policy (default: inline.Default()).
func Inline(p inline.Policy) Option { return func(c *config) { c.inline = p } }

// MeasureWorkSpan makes every run measure its work and span (see
// Runtime.WorkSpan). It turns inlining off, so that every spawn is a task
// and the graph measured is the program's, not what one run's load chose
// to inline; and each task frame costs two clock reads more.
func MeasureWorkSpan() Option { return func(c *config) { c.workSpan = true } }

// New makes a runtime.
func New(opts ...Option) *Runtime {
	c := config{workers: runtime.GOMAXPROCS(0), inline: inline.Default()}
	for _, o := range opts {
		o(&c)
	}
	if c.workers < 1 {
		c.workers = 1
	}
	if c.workSpan {
		c.inline = inline.Never()
	}
	rt := &Runtime{pool: sched.NewPool(c.workers, c.inline), inline: c.inline}
	rt.pool.SetWorkSpan(c.workSpan)
	return rt
}

// WorkSpan reports the last run's work T_1 (the time all task frames
// computed, summed) and span T_inf (its critical path), as Cilkscale does;
// T_1/T_inf is the parallelism the program has. Zero unless the runtime
// was made with MeasureWorkSpan.
func (rt *Runtime) WorkSpan() (work, span time.Duration) {
	var w int64
	for _, s := range rt.pool.WorkerStats() {
		w += s.WorkNanos
	}
	return time.Duration(w), rt.pool.Span()
}

// Workers reports the number of workers.
func (rt *Runtime) Workers() int { return rt.pool.Workers() }

// InlinePolicy reports the inlining policy.
func (rt *Runtime) InlinePolicy() inline.Policy { return rt.inline }

// Pool returns the scheduler's pool beneath the runtime, for the cluster
// layer that connects it to other nodes.
func (rt *Runtime) Pool() *sched.Pool { return rt.pool }

// WorkerStats returns the per-worker counters of the last run.
func (rt *Runtime) WorkerStats() []Stats { return rt.pool.WorkerStats() }

// Run runs t(arg) as the root task and returns its result and the run's
// counters. It returns an error if ctx is cancelled first (wrapping the
// cause) or if a task panics (a *TaskPanic). Tasks still queued when the
// root's result is ready are dropped.
func Run[A, R any](ctx context.Context, rt *Runtime, t *Task[A, R], arg A) (R, Stats, error) {
	f := &frame[A, R]{arg: arg}
	f.Init(&t.kind)
	stats, err := rt.pool.Run(ctx, &f.Header)
	if err != nil {
		var zero R
		return zero, stats, err
	}
	return f.res, stats, nil
}
