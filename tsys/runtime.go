package tsys

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/runtimeseam"
	"github.com/tsys-go/tsys/internal/sched"
)

// Stats are a run's counters on this node, summed over its workers: what
// a program reads to profile its steal and inline ratios. On a cluster,
// what the node did for a job across nodes is counted apart, in the
// command line's report.
type Stats struct {
	Spawns        int64 `json:"spawns"`         // spawn calls (Fork, Spawn, Both, Pair), inlined or not
	Inlined       int64 `json:"inlined"`        // spawns that ran as a direct call
	TasksRun      int64 `json:"tasks_run"`      // task frames run to completion here
	LocalSteals   int64 `json:"local_steals"`   // tasks taken from another worker of this node
	StealAttempts int64 `json:"steal_attempts"` // local steal attempts, successful or not
	MaxDeque      int64 `json:"max_deque"`      // largest deque length seen at a push
	BlockedWaits  int64 `json:"blocked_waits"`  // Gets and Joins that had to park the task
	IdleNanos     int64 `json:"idle_ns"`        // time workers spent looking for work or parked
	StolenFrom    int64 `json:"stolen_from"`    // tasks other workers or nodes took from a worker's deque
	BusyNanos     int64 `json:"busy_ns"`        // time workers held work: the run's span less their idle time
	WorkNanos     int64 `json:"work_ns"`        // time task frames computed, with MeasureWorkSpan: the work T_1
	SpanNanos     int64 `json:"span_ns"`        // the run's critical path, with MeasureWorkSpan: the span T_inf
}

// InlineRatio is the share of spawns that were inlined.
func (s Stats) InlineRatio() float64 { return sched.Stats(s).InlineRatio() }

// Add sums o into s (MaxDeque and SpanNanos take the maximum).
//
// Deprecated: sum the counters a program needs; the runtime's reports
// sum them for it.
func (s *Stats) Add(o Stats) {
	t := sched.Stats(*s)
	t.Add(sched.Stats(o))
	*s = Stats(t)
}

func init() {
	runtimeseam.Inspect = func(rt any) runtimeseam.Inside {
		r, ok := rt.(*Runtime)
		if !ok || r == nil {
			panic(fmt.Sprintf("runtimeseam.Inspect: %T is not a non-nil *tsys.Runtime", rt))
		}
		return runtimeseam.Inside{Main: r.pool, Last: r.last.Load(), Inline: r.conf.inline}
	}
}

// Runtime runs jobs on a set of workers. It is reusable: Run may be called
// again after a run ends, failed or not. Between runs it holds no goroutine.
//
// Runs may overlap: Run and Do may be called from several goroutines at
// once, and from inside a task of a run on the same runtime (a library
// that uses tsys, called from a task). Each run has its own failure
// scope: one failing or cancelled fails no other, and each ends with its
// own context. The first run takes the runtime's own pool of workers; a
// run that begins while that pool is busy gets a spare pool of as many
// workers, with the same options, kept for later runs. Runs share the
// machine's CPUs, not workers: the scheduler's deques, idle list and
// failure belong to one run each, and a run cannot take a worker from
// another without giving every task a way to tell the runs apart, a cost
// on every spawn. A run on a spare pool stays on its node (the cluster
// layer drives the main pool only) and records no timeline or task tree
// set on the main pool.
//
// Once the runs in progress hold the CPUs (their workers number
// GOMAXPROCS or more), a run that begins runs solo: on the goroutine that
// called Run or Do, on one worker, with every spawn a plain call, since
// nobody could take a task from it; it starts no goroutine. So a server
// that calls Run or Do from many goroutines at once, a small job per
// request, gets its parallelism from the requests, as with errgroup or
// plain goroutines, and each request pays little more than its plain
// code; a request that comes alone gets every worker. Make one Runtime
// for the process and call Run or Do from each handler with the
// request's context: a request whose context ends (a client gone, a
// deadline) gets the context's error within a leaf's time, whatever else
// runs (bench/README.md, "Many callers").
type Runtime struct {
	pool *sched.Pool
	conf config // the options it was made with, for its spare pools
	// spares are the pools of overlapping runs, kept between runs, since
	// a pool's workers keep the deques and frames they grew.
	sparesMu sync.Mutex
	spares   []*sched.Pool
	// last is the pool of the last run to end (WorkerStats, WorkSpan).
	last atomic.Pointer[sched.Pool]
	// running counts the runs in progress, which decides whether the
	// next runs solo.
	running atomic.Int32
}

// Option configures a Runtime.
type Option func(*config)

type config struct {
	workers     int
	inline      inline.Policy
	workSpan    bool
	checkCopies bool
}

// Workers sets the number of workers. n <= 0 means the default,
// runtime.GOMAXPROCS(0) when New is called.
func Workers(n int) Option { return func(c *config) { c.workers = n } }

// Inline sets the inlining policy (default: inline.Default()).
func Inline(p inline.Policy) Option { return func(c *config) { c.inline = p } }

// MeasureWorkSpan makes every run measure its work and span, as Cilkscale
// does: the run's Stats hold them (WorkNanos, the work T_1; SpanNanos,
// the span T_inf). It turns inlining off, so that every spawn is a task
// and the graph measured is the program's, not what one run's load chose
// to inline; and each task frame costs two clock reads more.
func MeasureWorkSpan() Option { return func(c *config) { c.workSpan = true } }

// CheckCopies makes every task that may cross nodes (Task.WhyLocal is
// nil) run on a copy of its argument and give back a copy of its result,
// even on one node, as it would on another: a program whose tasks change
// memory through their arguments gives its wrong answer in its own tests
// instead of only on a cluster. A spawn of such a task is then always a
// task (never inlined), so that every one is copied; everything else
// (tasks that stay on their node, and the closure forms Both, Pair, For
// and Fold) is inlined as usual, so a test suite runs at about its usual
// speed; their spawns only ask the inlining policy each time rather than
// on credit, a few nanoseconds more each (BenchmarkTreeSumCheckCopies).
// Ctx.AllowCCall answers no under the check, since the code it guards may
// run a lendable task's body as a plain call. A copy larger than 1 MB, or
// slower than 1 ms, is reported once per task (log/slog, at level Warn):
// every task of that kind pays it. The environment variable
// TSYS_CHECK_COPIES=1 turns the check on for every runtime a program
// makes, without changing its code:
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
	if c.workers <= 0 {
		c.workers = runtime.GOMAXPROCS(0)
	}
	if c.workSpan {
		c.inline = inline.Never()
	}
	rt := &Runtime{conf: c}
	rt.pool = rt.newPool()
	rt.last.Store(rt.pool)
	return rt
}

// newPool makes a pool of the runtime's workers and options.
func (rt *Runtime) newPool() *sched.Pool {
	p := sched.NewPool(rt.conf.workers, rt.conf.inline)
	p.SetWorkSpan(rt.conf.workSpan)
	p.SetCheckCopies(rt.conf.checkCopies)
	return p
}

// run runs root on the main pool if it is free, else on a spare pool:
// never waiting for another run, which may be the caller's own (Run from
// inside a task). Once the runs in progress hold the CPUs, it runs solo
// (sched/solo.go): on the caller's goroutine, one worker.
func (rt *Runtime) run(ctx context.Context, root *sched.Header) (Stats, error) {
	others := rt.running.Add(1) - 1
	defer rt.running.Add(-1)
	if int(others)*rt.conf.workers >= runtime.GOMAXPROCS(0) {
		return rt.runSolo(ctx, root)
	}
	if ran, st, err := rt.pool.TryRun(ctx, root); ran {
		rt.last.Store(rt.pool)
		return Stats(st), err
	}
	p := rt.takeSpare()
	defer rt.putSpare(p)
	st, err := p.Run(ctx, root)
	rt.last.Store(p)
	return Stats(st), err
}

// runSolo runs root solo on the main pool if it is free and no cluster
// drives it, else on a spare pool.
func (rt *Runtime) runSolo(ctx context.Context, root *sched.Header) (Stats, error) {
	if ran, st, err := rt.pool.TryRunSolo(ctx, root); ran {
		rt.last.Store(rt.pool)
		return Stats(st), err
	}
	p := rt.takeSpare()
	defer rt.putSpare(p)
	st, err := p.RunSolo(ctx, root)
	rt.last.Store(p)
	return Stats(st), err
}

func (rt *Runtime) takeSpare() *sched.Pool {
	rt.sparesMu.Lock()
	defer rt.sparesMu.Unlock()
	if k := len(rt.spares); k > 0 {
		p := rt.spares[k-1]
		rt.spares = rt.spares[:k-1]
		return p
	}
	return rt.newPool()
}

func (rt *Runtime) putSpare(p *sched.Pool) {
	rt.sparesMu.Lock()
	defer rt.sparesMu.Unlock()
	rt.spares = append(rt.spares, p)
}

// WorkSpan reports the last run's work T_1 (the time all task frames
// computed, summed) and span T_inf (its critical path), as Cilkscale does;
// T_1/T_inf is the parallelism the program has. Zero unless the runtime
// was made with MeasureWorkSpan.
//
// Deprecated: a run's Stats hold them, WorkNanos and SpanNanos, and the
// run's own, even when runs overlap.
func (rt *Runtime) WorkSpan() (work, span time.Duration) {
	rt.check("WorkSpan")
	var w int64
	p := rt.last.Load()
	for _, s := range p.View().WorkerStats() {
		w += s.WorkNanos
	}
	return time.Duration(w), p.View().Span()
}

// Workers reports the number of workers.
//
// Deprecated: it is the Workers option's n, or runtime.GOMAXPROCS(0) for
// n <= 0; a program has no use for it while it runs, since forks and loops
// split by the load, not by the count of workers.
func (rt *Runtime) Workers() int {
	rt.check("Workers")
	return rt.pool.Workers()
}

// InlinePolicy reports the inlining policy.
//
// Deprecated: it is the Inline option's policy, or inline.Default().
func (rt *Runtime) InlinePolicy() inline.Policy {
	rt.check("InlinePolicy")
	return rt.conf.inline
}

// Pool returns the scheduler's pool beneath the runtime, for the cluster
// layer that connects it to other nodes: the main pool, which a run takes
// when no other run has it (see Runtime).
//
// Deprecated: the scheduler is the runtime's own (internal/sched); the
// command line's run verb records timelines and task trees.
func (rt *Runtime) Pool() *sched.Pool {
	rt.check("Pool")
	return rt.pool
}

// WorkerStats returns the per-worker counters of the last run to end.
//
// Deprecated: a run's Stats sum them; the command line's --profile prints
// them per worker.
func (rt *Runtime) WorkerStats() []Stats {
	rt.check("WorkerStats")
	ws := rt.last.Load().View().WorkerStats()
	out := make([]Stats, len(ws))
	for i, s := range ws {
		out[i] = Stats(s)
	}
	return out
}

// check panics, saying what to do, if rt is nil: a method of a nil
// *Runtime would otherwise panic with a bare nil dereference.
func (rt *Runtime) check(method string) {
	if rt == nil {
		panic("tsys: Runtime." + method + " called on a nil *Runtime: make one with tsys.New()")
	}
	if rt.pool == nil {
		panic("tsys: Runtime." + method + " called on a Runtime not made by tsys.New (its zero value): make one with tsys.New()")
	}
}

// Run runs t(arg) as the root task and returns its result and the run's
// counters. It returns an error if ctx is cancelled first, if a task fails
// (a *TaskError, see Ctx.Fail) or if a task panics (a *TaskPanic); the
// first of these is the run's error, and once it happens no task starts:
// Run returns as soon as the tasks running then return (a task that runs
// long polls c.Context().Done()). Tasks still queued when the root's result is ready
// are dropped.
//
// A run that ends by its context returns an error for which
// errors.Is(err, context.Canceled) (or context.DeadlineExceeded) is true,
// and errors.Is reaches the cause given to context.WithCancelCause too.
// A run whose context is done before its result reaches the caller
// returns that error, never the result, even if the result was ready: the
// caller gave up on it. The runtime's workers watch the context
// themselves, so a run ends within about a leaf task's time of its
// deadline even while other runs hold every CPU.
//
// Run may be called from several goroutines at once, and from inside a
// task: each call is a run of its own (see Runtime), never waiting for
// another. From inside a task, pass the task's c.Context(), so that the
// inner run ends when the outer one fails; and prefer Fork, Spawn or
// t.Call(c, arg), which run t as part of the current job, on its workers.
//
// A nil ctx, rt or t is an error.
func Run[A, R any](ctx context.Context, rt *Runtime, t *Task[A, R], arg A) (R, Stats, error) {
	var zero R
	if t == nil {
		return zero, Stats{}, errors.New("tsys.Run: nil *Task: the task is used before it is registered; " +
			"assign it with tsys.Register in a package-level var or an init function")
	}
	if err := checkRun("tsys.Run", ctx, rt); err != nil {
		return zero, Stats{}, err
	}
	return runTask(ctx, rt, t, arg)
}

// checkRun checks what Run and Do are given, for a message that says what
// to do where a nil would panic deep inside the scheduler.
func checkRun(fn string, ctx context.Context, rt *Runtime) error {
	if rt == nil {
		return fmt.Errorf("%s: nil *Runtime: make one with tsys.New()", fn)
	}
	if rt.pool == nil {
		return fmt.Errorf("%s: a Runtime not made by tsys.New (its zero value): make one with tsys.New()", fn)
	}
	if ctx == nil {
		return fmt.Errorf("%s: nil context.Context: pass context.Background() or the task's c.Context()", fn)
	}
	return nil
}

func runTask[A, R any](ctx context.Context, rt *Runtime, t *Task[A, R], arg A) (R, Stats, error) {
	f := &frame[A, R]{arg: arg}
	f.Init(&t.kind)
	stats, err := rt.run(ctx, &f.Header)
	if err != nil {
		var zero R
		return zero, stats, userError(err)
	}
	return f.res, stats, nil
}
