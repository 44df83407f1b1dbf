package tsys

import (
	"context"
	"errors"
	"fmt"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/runtimecore"
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
//
// A Runtime is the runtime beneath this package under its public name:
// its fields are that runtime's, none of them a program's, and a program
// makes one with New and uses it through Run, Do and the methods here.
type Runtime runtimecore.Runtime

// core is the runtime beneath rt. A Runtime is defined on the core's
// struct, not as a wrapper around it, so that the command line, which
// runs a program's job on a cluster node's runtime, hands it over as a
// *Runtime by a conversion, at no cost and with no hook between the
// packages (package runtimecore).
func (rt *Runtime) core() *runtimecore.Runtime { return (*runtimecore.Runtime)(rt) }

// Option configures a Runtime.
type Option struct{ set func(*config) }

type config struct {
	workers     int
	inline      inline.Policy
	workSpan    bool
	checkCopies bool
}

// checkCopies is TSYS_CHECK_COPIES=1 as an option, for the package's
// tests (export_test.go).
func checkCopies() Option { return Option{func(c *config) { c.checkCopies = true }} }

// Workers sets the number of workers. n <= 0 means the default,
// runtime.GOMAXPROCS(0) when New is called.
func Workers(n int) Option { return Option{func(c *config) { c.workers = n }} }

// Inline sets the inlining policy (default: inline.Default()).
func Inline(p inline.Policy) Option { return Option{func(c *config) { c.inline = p }} }

// MeasureWorkSpan makes every run measure its work and span, as Cilkscale
// does: the run's Stats hold them (WorkNanos, the work T_1; SpanNanos,
// the span T_inf). It turns inlining off, so that every spawn is a task
// and the graph measured is the program's, not what one run's load chose
// to inline; and each task frame costs two clock reads more.
func MeasureWorkSpan() Option { return Option{func(c *config) { c.workSpan = true }} }

// New makes a runtime.
func New(opts ...Option) *Runtime {
	c := config{inline: inline.Default()}
	for _, o := range opts {
		if o.set != nil { // the zero Option changes nothing, as the zero TaskOption
			o.set(&c)
		}
	}
	return (*Runtime)(runtimecore.New(runtimecore.Config{
		Workers: c.workers, Inline: c.inline, WorkSpan: c.workSpan, CheckCopies: c.checkCopies,
	}))
}

// check panics, saying what to do, if rt is nil: a method of a nil
// *Runtime would otherwise panic with a bare nil dereference.
func (rt *Runtime) check(method string) {
	if rt == nil {
		panic("tsys: Runtime." + method + " called on a nil *Runtime: make one with tsys.New()")
	}
	if !rt.core().Made() {
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
	if !rt.core().Made() {
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
	st, err := rt.core().Run(ctx, &f.Header)
	if err == nil && runtimecore.ContextEnded(ctx) {
		// Looked at last, as close to the return as it can be: the
		// caller gave up on the result before it got it.
		err = sched.Cancelled(ctx)
	}
	if err != nil {
		var zero R
		return zero, Stats(st), userError(err)
	}
	return f.res, Stats(st), nil
}
