package tsys_test

import (
	"context"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// ForkChain is a fork chain: each level forks the next and joins it at
// once, so its deque never holds the ready tasks the inlining policy
// counts (sched/deepchain.go).
var ForkChain *tsys.Task[int, int64]

func init() { ForkChain = tsys.Register("tsys_test.forkchain", forkChain) }

func forkChain(c *tsys.Ctx, n int) int64 {
	if n == 0 {
		return 0
	}
	next := ForkChain.Fork(c, n-1)
	return next.Join(c) + 1
}

func plainChain(n int) int64 {
	if n == 0 {
		return 0
	}
	return plainChain(n-1) + 1
}

func runChain(t *testing.T, rt *tsys.Runtime, depth int) tsys.Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, stats, err := tsys.Run(ctx, rt, ForkChain, depth)
	if err != nil {
		t.Fatalf("chain of %d: %v", depth, err)
	}
	if v != int64(depth) {
		t.Fatalf("chain of %d returned %d", depth, v)
	}
	return stats
}

// On one worker nobody can take a task of the chain: its forks are calls
// (sched's alone rule; the deep-chain rule, for a worker that other nodes
// may ask, is sched's TestDeepChainRule); under a policy that never
// inlines, every level stays a task.
func TestDeepForkChainInlines(t *testing.T) {
	const deep, shallow = 20_000, 200
	t.Run("deep", func(t *testing.T) {
		s := runChain(t, tsys.New(tsys.Workers(1)), deep)
		if s.Inlined < deep {
			t.Errorf("a chain %d deep on 1 worker inlined %d of its forks; want all", deep, s.Inlined)
		}
	})
	t.Run("shallow", func(t *testing.T) {
		if s := runChain(t, tsys.New(tsys.Workers(1)), shallow); s.Inlined < shallow {
			t.Errorf("a chain %d deep on 1 worker inlined %d of its forks; want all", shallow, s.Inlined)
		}
	})
	t.Run("never", func(t *testing.T) {
		if s := runChain(t, tsys.New(tsys.Workers(1), tsys.Inline(inline.Never())), deep); s.Inlined != 0 {
			t.Errorf("under inline.Never a chain inlined %d forks", s.Inlined)
		}
	})
	t.Run("two workers", func(t *testing.T) {
		// The other worker is hungry all along: the chain is right,
		// whichever way its forks go.
		runChain(t, tsys.New(tsys.Workers(2)), deep)
	})
}

// BenchmarkForkChain measures a chain of forks a million deep against the
// plain recursion (bench/README.md, "Deep fork chains").
func BenchmarkForkChain(b *testing.B) {
	const depth = 1_000_000
	for _, w := range []int{1, 2} {
		rt := tsys.New(tsys.Workers(w))
		b.Run("fork/w"+string(rune('0'+w)), func(b *testing.B) {
			for range b.N {
				if v, _, err := tsys.Run(context.Background(), rt, ForkChain, depth); err != nil || v != depth {
					b.Fatal(v, err)
				}
			}
		})
	}
	b.Run("plain", func(b *testing.B) {
		for range b.N {
			if v := plainChain(depth); v != depth {
				b.Fatal(v)
			}
		}
	})
}
