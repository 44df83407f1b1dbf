package sched

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
)

// chainFrame is a fork chain n deep: each level asks the policy, as an
// inlined spawn does, and forks the next level or calls it; inlined
// counts the calls.
func chainFrame(n int, inlined *int) *Header {
	return newFrame(func(x *Ctx) { chainLevel(x, n, inlined) })
}

func chainLevel(x *Ctx, n int, inlined *int) {
	if n == 0 {
		return
	}
	if _, ccall := x.AskSpawn(nil); ccall {
		*inlined++
		chainLevel(x, n-1, inlined)
		return
	}
	x.Push(chainFrame(n-1, inlined))
	x.JoinForked(x.Fast.Spawned)
}

func runChainOn(t *testing.T, p *Pool, n int) int {
	t.Helper()
	inlined := 0
	if _, err := p.Run(context.Background(), chainFrame(n, &inlined)); err != nil {
		t.Fatal(err)
	}
	return inlined
}

// TestAloneInlinesEveryFork: on a pool of one worker that no cluster
// drives, nobody could take a task, and under load-based inlining every
// spawn is a call; under inline.Never every one stays a task.
func TestAloneInlinesEveryFork(t *testing.T) {
	if got := runChainOn(t, NewPool(1, inline.Default()), 200); got != 200 {
		t.Errorf("a chain of 200 on a lone worker inlined %d forks, want all", got)
	}
	if got := runChainOn(t, NewPool(1, inline.Never()), 200); got != 0 {
		t.Errorf("under inline.Never a chain inlined %d forks", got)
	}
}

// TestDeepChainRule: on one worker of a node in a cluster, where another
// node may ask for work, a fork chain's forks are tasks until deepNesting
// of them run nested, and calls after, while nobody wants work
// (deepchain.go).
func TestDeepChainRule(t *testing.T) {
	const deep, shallow = 20_000, deepNesting - 56
	clustered := func() *Pool {
		p := NewPool(1, inline.Default())
		p.Port().SetRemote(&hungerCount{})
		return p
	}
	if got := runChainOn(t, clustered(), deep); got < deep-300 {
		t.Errorf("a chain %d deep inlined %d of its forks; want all but the first few hundred", deep, got)
	}
	if got := runChainOn(t, clustered(), shallow); got != 0 {
		t.Errorf("a chain %d deep inlined %d forks; the deep-chain rule must not reach it", shallow, got)
	}
}

// TestSoloRunsOnTheCaller: a solo run starts no goroutine of the pool and
// gives the root's result, and the pool runs normally after.
func TestSoloRunsOnTheCaller(t *testing.T) {
	p := NewPool(2, inline.Default())
	inlined := 0
	if _, err := p.RunSolo(context.Background(), chainFrame(500, &inlined)); err != nil {
		t.Fatal(err)
	}
	if inlined != 500 {
		t.Errorf("a solo chain of 500 inlined %d forks, want all: nobody could take one", inlined)
	}
	if n := p.View().ExecutorsStarted(); n != 0 {
		t.Errorf("a solo run started %d executor goroutines, want none", n)
	}
	if got := runChainOn(t, p, 500); got == 500 {
		t.Errorf("a run on two workers after the solo one inlined every fork: the solo rule outlived its run")
	}
}

// TestCtxKeptAfterASoloRun: a Ctx a solo run's task kept, read on another
// goroutine while the pool runs its next solo run, still belongs to its
// own run: its Context is that run's, done, and using it names the
// mistake of a Ctx kept after its job. (Its Context may be read anywhere,
// at any time.)
func TestCtxKeptAfterASoloRun(t *testing.T) {
	p := NewPool(1, inline.Default())
	var kept *Ctx
	if _, err := p.RunSolo(context.Background(), newFrame(func(x *Ctx) { kept = x })); err != nil {
		t.Fatal(err)
	}
	first := kept.Context()
	inRun, read := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(read)
		<-inRun
		if ctx := kept.Context(); ctx != first || ctx.Err() == nil {
			t.Errorf("a kept Ctx's Context, during the next solo run: %v (err %v); want its own run's, done", ctx, ctx.Err())
		}
		if why := kept.misuse(true); why != errCtxAfterRun {
			t.Errorf("a kept Ctx used during the next solo run: %q; want %q", why, errCtxAfterRun)
		}
	}()
	if _, err := p.RunSolo(context.Background(), newFrame(func(*Ctx) { close(inRun); <-read })); err != nil {
		t.Fatal(err)
	}
}

// TestSoloCyclicWaitEnds: a solo run whose root waits for a frame that
// can finish only after it (its own) hands its worker on, as any run
// does; the run's goroutine is the waiter, so the run's end cannot wake
// it as it wakes a pool's run's waiters. The run's failure must: its
// caller's deadline, or a task that the worker ran meanwhile and that
// panicked. Either way the run returns its error rather than hang.
func TestSoloCyclicWaitEnds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		push    bool // a task that panics, which the worker runs once handed on
		want    func(error) bool
	}{
		{"deadline", 10 * time.Millisecond, false, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"panic", time.Hour, true, func(err error) bool { var tp *TaskPanic; return errors.As(err, &tp) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPool(1, inline.Default())
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			var root *Header
			root = newFrame(func(x *Ctx) {
				if tc.push {
					x.Push(newFrame(func(*Ctx) { panic("boom") }))
				}
				x.Await(root)
			})
			done := make(chan error, 1)
			go func() {
				_, err := p.RunSolo(ctx, root)
				done <- err
			}()
			select {
			case err := <-done:
				if !tc.want(err) {
					t.Errorf("a solo run in a cyclic wait ended with %v", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("a solo run in a cyclic wait outlived its failure by a minute")
			}
		})
	}
}
