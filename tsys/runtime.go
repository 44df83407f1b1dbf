package tsys

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/sched"
)

// Stats are the runtime's counters for one run: its scheduler's, on this
// node (see sched.Stats). On a cluster, what the node did for a job
// across nodes is counted apart (cluster.NetStats).
type Stats = sched.Stats

// TaskPanic is the error of a run in which a task panicked; it names the
// task and carries the stack.
type TaskPanic = sched.TaskPanic

// ErrRemote is the error of a run that failed on another node: a task's
// error or panic there, as its text, and the node's name. errors.Is and
// errors.As cannot reach the task's own error through it.
type ErrRemote = sched.ErrRemote

// TaskError is the error of a run in which a task registered with
// RegisterErr returned an error: it names the task, and Unwrap returns the
// error itself.
type TaskError struct {
	Task string // the registered name of the task that failed
	Err  error
}

func (e *TaskError) Error() string { return fmt.Sprintf("task %q: %v", e.Task, e.Err) }

// Unwrap returns the task's own error, for errors.Is and errors.As.
func (e *TaskError) Unwrap() error { return e.Err }

// Runtime runs jobs on a set of workers. It is reusable: Run may be called
// again after a run ends, failed or not. Between runs it holds no goroutine.
type Runtime struct {
	pool   *sched.Pool
	inline inline.Policy
}

// Option configures a Runtime.
type Option func(*config)

type config struct {
	workers     int
	inline      inline.Policy
	workSpan    bool
	checkCopies bool
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

// CheckCopies makes every task that may cross nodes (Task.Lendable) run
// on a copy of its argument and give back a copy of its result, even on
// one node, as it would on another: a program whose tasks change memory
// through their arguments gives its wrong answer in its own tests instead
// of only on a cluster. A spawn of such a task is then always a task (never
// inlined), so that every one is copied; everything else (tasks that stay
// on their node, Join, For, Reduce and the other closure forms) is inlined
// as usual, so a test suite runs at about its usual speed; their spawns
// only ask the inlining policy each time rather than on credit, a few
// nanoseconds more each (BenchmarkTreeSumCheckCopies). Ctx.AllowCCall
// answers no under the check, since the code it guards may run a lendable
// task's body as a plain call. A copy larger than 1 MB, or slower than
// 1 ms, is reported once per task (log/slog, at level Warn): every task
// of that kind pays it. The environment variable TSYS_CHECK_COPIES=1 turns
// the check on for every runtime a program makes, without changing its
// code:
//
//	TSYS_CHECK_COPIES=1 go test ./...
func CheckCopies() Option { return func(c *config) { c.checkCopies = true } }

// checkCopiesEnv is the environment variable that turns CheckCopies on.
const checkCopiesEnv = "TSYS_CHECK_COPIES"

// checkCopiesFromEnv reads TSYS_CHECK_COPIES: 1 or true turns the check
// on, 0, false or nothing leaves it off. Any other value turns it on,
// with a warning: someone asked for a check, and a typo must not pass a
// test suite unchecked.
func checkCopiesFromEnv() bool {
	v := os.Getenv(checkCopiesEnv)
	if v == "" {
		return false
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		slog.Warn("tsys: "+checkCopiesEnv+" is neither true nor false; checking copies (write 1 or 0)", "value", v)
		return true
	}
	return on
}

// New makes a runtime.
func New(opts ...Option) *Runtime {
	c := config{workers: runtime.GOMAXPROCS(0), inline: inline.Default()}
	c.checkCopies = checkCopiesFromEnv()
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
	rt.pool.SetCheckCopies(c.checkCopies)
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
// cause), if a task fails (a *TaskError, see RegisterErr) or if a task
// panics (a *TaskPanic); the first of these is the run's error, and once
// it happens no task starts: Run returns as soon as the tasks running
// then return (a task that runs long polls Ctx.Done). Tasks still queued
// when the root's result is ready are dropped.
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
