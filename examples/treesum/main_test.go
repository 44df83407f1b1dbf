package main

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/clitest"
	"github.com/tsys-go/tsys/tsys"
)

// TestSumsAreVerified: every form of the three recursions gives the
// serial recursion's answer, on 1 and 2 workers, with every spawn a task
// (so the generated code runs its forms as written), none, and the
// default policy, and as written.
func TestSumsAreVerified(t *testing.T) {
	trees := [][]string{
		{"--tree", "range", "-n", "1"}, {"--tree", "range", "-n", "100003"},
		{"--tree", "pointer", "--depth", "0"}, {"--tree", "pointer", "--depth", "13"},
		{"--tree", "sort", "-n", "0"}, {"--tree", "sort", "-n", "20011"},
	}
	forms := [][]string{
		{"--form", "pair"}, {"--form", "both"}, {"--form", "fork"},
		{"--form", "pair", "--as-written"}, {"--form", "both", "--as-written"},
	}
	for _, tree := range trees {
		for _, form := range forms {
			for _, extra := range [][]string{{"--workers", "1"}, {"--workers", "2"}, {"--workers", "2", "--inline", "off"}, {"--workers", "2", "--inline", "always"}} {
				args := append(append(append([]string{"run", "sum", "--json"}, tree...), form...), extra...)
				code, rep, stderr := clitest.Exec(t, config, args...)
				if code != 0 || rep["verified"] != true {
					t.Fatalf("%v: exit %d, verified %v\n%s", args, code, rep["verified"], stderr)
				}
			}
		}
	}
}

// TestChecksumSeesOrder: the sort's answer is 0 for a slice out of order,
// so that a sort that lost its order fails Verify.
func TestChecksumSeesOrder(t *testing.T) {
	if got := checksum([]int{1, 3, 2}); got != 0 {
		t.Errorf("checksum of [1 3 2] = %d, want 0", got)
	}
	if got := checksum([]int{1, 2, 3}); got != 1+4+9 {
		t.Errorf("checksum of [1 2 3] = %d, want 14", got)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "sum", "--tree", "list"},
		{"run", "sum", "--form", "join"},
		{"run", "sum", "--form", "fork", "--as-written"},
		{"run", "sum", "--tree", "sort", "-n", "-1"},
		{"run", "sum", "-n", "0"},
		{"run", "sum", "--tree", "pointer", "--depth", "27"},
	} {
		if code, _, stderr := clitest.Exec(t, config, args...); code != 2 || !strings.Contains(stderr, "sum: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message naming the program", args, code, stderr)
		}
	}
}

// BenchmarkForms: the three recursions of the finest grain, 10 M single
// leaves by halving a range, a pointer tree of 2^20-1 nodes and a merge
// sort of 2^18 ints down to single elements, in every form a Go developer
// may write them, on 1 and 2 workers (bench/README.md, "The closure forms
// as users write them"): the plain recursion (serial), goroutines split by
// hand to a depth (goroutines), a registered task's Fork (fork), Pair and
// Both as written (pair, both) and through go generate's cutoff
// (pair-generated, both-generated). goroutines runs with GOMAXPROCS at
// the workers' count; serial is the same under both.
func BenchmarkForms(b *testing.B) {
	const leaves, depth, ints = 10_000_000, 20, 1 << 18
	sizes := map[string][2]int{"range": {leaves, 0}, "pointer": {0, depth}, "sort": {ints, 0}}
	for _, tree := range []string{"range", "pointer", "sort"} {
		n := sizes[tree][0]
		// Made for the cells that run only: a tree left in the heap
		// would be marked at every collection of another tree's cells.
		in := sync.OnceValue(func() input { return makeInput(tree, n, sizes[tree][1]) })
		want := sync.OnceValue(func() uint64 { return serial(tree, n, in()) })
		for _, workers := range []int{1, 2} {
			rt := tsys.New(tsys.Workers(workers), tsys.Inline(inline.Default()))
			for _, form := range []string{"serial", "goroutines", "fork", "pair", "both", "pair-generated", "both-generated"} {
				b.Run(fmt.Sprintf("tree=%s/form=%s/workers=%d", tree, form, workers), func(b *testing.B) {
					if form == "goroutines" {
						defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
					}
					in := in()
					want()
					for b.Loop() {
						var v uint64
						var err error
						switch form {
						case "serial":
							v = serial(tree, n, in)
						case "goroutines":
							v = byGoroutines(tree, n, in, handSplitDepth(workers))
						default:
							f, generated := strings.CutSuffix(form, "-generated")
							v, _, err = run(context.Background(), rt, tree, f, !generated, n, in)
						}
						if err != nil || v != want() {
							b.Fatalf("answer %d, %v; want %d", v, err, want())
						}
					}
				})
			}
		}
	}
}

// handSplitDepth is the depth to which the goroutines split: a few levels
// past one per worker, for balance.
func handSplitDepth(workers int) int { return bits.Len(uint(workers)) + 3 }

// byGoroutines is run's answer by goroutines split by hand to depth.
func byGoroutines(tree string, n int, in input, depth int) uint64 {
	switch tree {
	case "range":
		return rangeGo(0, n, depth)
	case "pointer":
		return uint64(treeGo(in.root, depth))
	}
	return checksum(sortGo(in.xs, depth))
}
