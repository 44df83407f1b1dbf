package runtimecore

import (
	"context"
	"runtime"
	"time"

	"github.com/tsys-go/tsys/internal/sched"
)

// Run runs root on the main pool if it is free, else on a spare pool:
// never waiting for another run, which may be the caller's own (a run
// from inside a task). Once the runs in progress hold the CPUs (their
// workers number GOMAXPROCS or more), it runs solo (sched/solo.go): on
// the caller's goroutine, one worker, once admitted (admit.go).
func (rt *Runtime) Run(ctx context.Context, root *sched.Header) (sched.Stats, error) {
	others := rt.running.Add(1) - 1
	defer rt.running.Add(-1)
	if int(others)*rt.conf.Workers >= runtime.GOMAXPROCS(0) {
		return rt.runSolo(ctx, root)
	}
	return rt.onAPool(ctx, root, false)
}

// runSolo runs root solo on the main pool if it is free and no cluster
// drives it, else on a spare pool, once it is admitted (admit).
func (rt *Runtime) runSolo(ctx context.Context, root *sched.Header) (sched.Stats, error) {
	release, err := rt.admit(ctx)
	if err != nil {
		return sched.Stats{}, err
	}
	defer release()
	return rt.onAPool(ctx, root, true)
}

// onAPool runs root, solo or not, on the main pool if it is free, else
// on a spare pool, and notes the pool it ran on.
func (rt *Runtime) onAPool(ctx context.Context, root *sched.Header, solo bool) (sched.Stats, error) {
	try, run := (*sched.Pool).TryRun, (*sched.Pool).Run
	if solo {
		try, run = (*sched.Pool).TryRunSolo, (*sched.Pool).RunSolo
	}
	if ran, st, err := try(rt.pool, ctx, root); ran {
		rt.last.Store(rt.pool)
		return st, err
	}
	p := rt.takeSpare()
	defer rt.putSpare(p)
	st, err := run(p, ctx, root)
	rt.last.Store(p)
	return st, err
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

// ContextEnded reports whether ctx is done, or its deadline has passed
// though its timer has not yet said so: a run's caller looks at it last,
// as the run returns, since a result that reaches a caller who gave up
// on it is an error.
func ContextEnded(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ctx.Err() != nil || ok && !time.Now().Before(d)
}
