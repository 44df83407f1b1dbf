package runtimecore

import (
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/sched"
)

// Runtime runs jobs on a set of workers (tsys.Runtime says how a program
// sees it). The first run takes its main pool; a run that begins while
// that pool is busy gets a spare pool of as many workers, with the same
// options, kept for later runs; once the runs in progress hold the CPUs,
// a run runs solo (run.go). Its zero value is no runtime: make one with
// New.
type Runtime struct {
	pool *sched.Pool
	conf Config // the options it was made with, for its spare pools
	// spares are the pools of overlapping runs, kept between runs, since
	// a pool's workers keep the deques and frames they grew.
	sparesMu sync.Mutex
	spares   []*sched.Pool
	// last is the pool of the last run to end (Last).
	last atomic.Pointer[sched.Pool]
	// running counts the runs in progress, which decides whether the
	// next runs solo; turns holds a token per solo run running (admit).
	running atomic.Int32
	turns   chan struct{}
}

// Config is what a runtime is made with.
type Config struct {
	// Workers is the number of workers; 0 or less is
	// runtime.GOMAXPROCS(0) when New is called.
	Workers int
	// Inline is the inlining policy, as given: the zero Policy inlines
	// everything (tsys.New starts from inline.Default()).
	Inline inline.Policy
	// WorkSpan makes every run measure its work and span, and turns
	// inlining off (tsys.MeasureWorkSpan).
	WorkSpan bool
	// CheckCopies copies the argument and result of every task that may
	// cross nodes (tsys.CheckCopies); CheckCopiesEnv turns it on for
	// every runtime a program makes.
	CheckCopies bool
}

// CheckCopiesEnv is the environment variable that turns the check of
// copies on for every runtime, whoever makes it: a program's own
// (tsys.New), a cluster node's, the command line's.
const CheckCopiesEnv = "TSYS_CHECK_COPIES"

// checkCopiesFromEnv reads TSYS_CHECK_COPIES: 1 or true turns the check
// on, 0, false or nothing leaves it off. Any other value turns it on,
// with a warning: someone asked for a check, and a typo must not pass a
// test suite unchecked.
func checkCopiesFromEnv() bool {
	v := os.Getenv(CheckCopiesEnv)
	if v == "" {
		return false
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		slog.Warn("tsys: "+CheckCopiesEnv+" is neither true nor false; checking copies (write 1 or 0)", "value", v)
		return true
	}
	return on
}

// New makes a runtime of c, completed: its default worker count, the
// check of copies the environment asks for, no inlining while it
// measures work and span.
func New(c Config) *Runtime {
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.WorkSpan {
		c.Inline = inline.Never()
	}
	c.CheckCopies = c.CheckCopies || checkCopiesFromEnv()
	rt := &Runtime{conf: c, turns: make(chan struct{}, runtime.GOMAXPROCS(0))}
	rt.pool = rt.newPool()
	rt.last.Store(rt.pool)
	return rt
}

// newPool makes a pool of the runtime's workers and options.
func (rt *Runtime) newPool() *sched.Pool {
	p := sched.NewPool(rt.conf.Workers, rt.conf.Inline)
	p.SetWorkSpan(rt.conf.WorkSpan)
	p.SetCheckCopies(rt.conf.CheckCopies)
	return p
}

// Made reports whether rt was made by New, and not its zero value.
func (rt *Runtime) Made() bool { return rt.pool != nil }

// Main is the runtime's own pool, which a run takes when no other run
// has it, and which the cluster layer drives and the command line
// records on.
func (rt *Runtime) Main() *sched.Pool { return rt.pool }

// Last is the pool of the last run to end (its per-worker counters and
// span); Main before any run.
func (rt *Runtime) Last() *sched.Pool { return rt.last.Load() }

// Workers is the number of workers of each of its pools.
func (rt *Runtime) Workers() int { return rt.pool.Workers() }

// Inline is the inlining policy its pools were made with.
func (rt *Runtime) Inline() inline.Policy { return rt.conf.Inline }
