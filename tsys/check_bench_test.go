package tsys_test

import (
	"context"
	"testing"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// benchTree is a pointer tree: its tasks never leave their node.
type benchTree struct {
	L, R *benchTree
	V    int64
}

func makeBenchTree(depth int, v *int64) *benchTree {
	if depth == 0 {
		return nil
	}
	*v++
	t := &benchTree{V: *v}
	t.L, t.R = makeBenchTree(depth-1, v), makeBenchTree(depth-1, v)
	return t
}

var forkTreeSum *tsys.Task[*benchTree, int64]

func init() {
	forkTreeSum = tsys.Register("test.bench.treesum", func(c *tsys.Ctx, t *benchTree) int64 {
		if t == nil {
			return 0
		}
		l := forkTreeSum.Fork(c, t.L)
		return t.V + forkTreeSum.Call(c, t.R) + l.Join(c)
	})
}

// BenchmarkTreeSumCheckCopies is a pointer-tree sum (2^20 - 1 nodes)
// serially, and with Join and with Fork of a task that stays on its node,
// each without and with CheckCopies: the check must leave what stays on
// its node inlined, so that a test suite can run under it.
func BenchmarkTreeSumCheckCopies(b *testing.B) {
	var n int64
	tree := makeBenchTree(20, &n)
	want := n * (n + 1) / 2
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if sumSerial(tree) != want {
				b.Fatal("wrong")
			}
		}
	})
	// Every fork a task: what the check costs a task that may cross nodes.
	b.Run("fork-never", func(b *testing.B) {
		rt := tsys.New(tsys.Workers(1), tsys.Inline(inline.Never()))
		for b.Loop() {
			if v, _, err := tsys.Run(context.Background(), rt, forkTreeSum, tree); err != nil || v != want {
				b.Fatal(v, err)
			}
		}
	})
	for _, check := range []bool{false, true} {
		suffix := ""
		opts := []tsys.Option{tsys.Workers(1)}
		if check {
			suffix, opts = "-checked", append(opts, tsys.CheckCopies())
		}
		b.Run("join"+suffix, func(b *testing.B) {
			rt := tsys.New(opts...)
			for b.Loop() {
				v, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int64 { return sumJoined(c, tree) })
				if err != nil || v != want {
					b.Fatal(v, err)
				}
			}
		})
		b.Run("fork"+suffix, func(b *testing.B) {
			rt := tsys.New(opts...)
			for b.Loop() {
				v, _, err := tsys.Run(context.Background(), rt, forkTreeSum, tree)
				if err != nil || v != want {
					b.Fatal(v, err)
				}
			}
		})
	}
}
