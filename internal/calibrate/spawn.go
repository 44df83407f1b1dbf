package calibrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/median"
	"github.com/tsys-go/tsys/internal/runtimecore"
)

// The spawn tree is fib(n) as Fib runs it (apps/fib.Forking), whose every call above the
// leaves forks one child, spawnForks(n) in all. n grows from spawnMinN
// until a run with every fork a task takes spawnTarget of CPU time: long
// enough that the difference between the runs is far above the clock's
// resolution and spans many scheduler quanta, and no longer, so that a
// slow machine or the race detector, whose spawns cost many times more,
// gets a smaller tree rather than a longer calibration.
const (
	spawnMinN   = 18
	spawnMaxN   = 32
	spawnTarget = 30 * time.Millisecond
	spawnPairs  = 5 // pairs of runs, the median of their differences
	// spawnTimeout bounds one run: far beyond what it takes on any
	// machine that can run tsys at all, and never a short window.
	spawnTimeout = time.Minute
)

// spawnForks is how many forks fib(n) makes: one per call with n >= 2,
// and there are fib(n+1) - 1 of those.
func spawnForks(n int) int64 {
	a, b := int64(0), int64(1) // fib(0), fib(1)
	for range n {
		a, b = b, a+b
	}
	return b - 1 // b = fib(n+1)
}

// SpawnCost measures what a child costs when it is spawned as a task
// rather than called: a real runtime of one worker runs the same
// recursive tree (fib, the natural Fork and Join code) with every
// fork a task (inline.Never) and with every fork a plain call
// (inline.Everything), and the difference in time, divided by the forks,
// is the cost of one. The two alternate, in pairs whose order alternates
// too, and the result is the median of the pairs' differences, each run
// timed by the CPU time it took (stopwatch). One worker: nothing is
// stolen, so the difference is the spawn and join of a task, not
// scheduling across workers.
func SpawnCost(ctx context.Context, fib Fib) (time.Duration, error) {
	return spawnCost(ctx, fib, spawnPairs)
}

func spawnCost(ctx context.Context, fib Fib, pairs int) (time.Duration, error) {
	const what = "the spawn cost (fib's Fork and Join on one worker)"
	if fib == nil {
		return 0, errors.New(errNoFib)
	}
	if ctx.Err() != nil {
		return 0, cancelled(ctx, what)
	}
	asTasks := runtimecore.New(runtimecore.Config{Workers: 1, Inline: inline.Never()})
	asCalls := runtimecore.New(runtimecore.Config{Workers: 1, Inline: inline.Everything()})
	run := func(rt *runtimecore.Runtime, n int) (time.Duration, error) {
		rctx, cancel := context.WithTimeout(ctx, spawnTimeout)
		defer cancel()
		sw := startStopwatch()
		err := fib(rctx, rt, n)
		d := sw.elapsed()
		switch {
		case err == nil:
			return d, nil
		case ctx.Err() != nil:
			return 0, cancelled(ctx, what)
		case rctx.Err() != nil:
			return 0, overloaded(skipSpawn, "fib(%d) did not finish within %v on one worker", n, spawnTimeout)
		}
		return 0, fmt.Errorf("calibration failed: measuring %s: %w: %s", what, err, skipSpawn)
	}
	// Unmeasured: the runs that choose n also grow the frames and deques
	// the measured ones reuse.
	n := spawnMinN
	for ; n < spawnMaxN; n++ {
		d, err := run(asTasks, n)
		if err != nil {
			return 0, err
		}
		if d >= spawnTarget {
			break
		}
	}
	if _, err := run(asCalls, n); err != nil {
		return 0, err
	}
	diffs := make([]time.Duration, 0, pairs)
	for i := range pairs {
		order := []*runtimecore.Runtime{asTasks, asCalls}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		var took [2]time.Duration
		for j, rt := range order {
			d, err := run(rt, n)
			if err != nil {
				return 0, err
			}
			took[j] = d
		}
		if i%2 == 1 {
			took[0], took[1] = took[1], took[0]
		}
		diffs = append(diffs, took[0]-took[1])
	}
	d := median.Of(diffs)
	if d <= 0 {
		return 0, overloaded(skipSpawn, "fib(%d) ran no slower with every fork a task than with none (median of %d pairs), so the machine's load hid the difference", n, pairs)
	}
	forks := spawnForks(n)
	return (d + time.Duration(forks/2)) / time.Duration(forks), nil
}
