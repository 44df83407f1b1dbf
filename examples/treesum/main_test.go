package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/clitest"
	"github.com/tsys-go/tsys/tsys"
)

// TestSumsAreVerified: every form of both trees is the serial sum, on 1
// and 2 workers, with every spawn a task (so the generated code runs its
// forms as written), none, and the default policy, and as written.
func TestSumsAreVerified(t *testing.T) {
	for _, tree := range [][]string{{"--tree", "range", "-n", "1"}, {"--tree", "range", "-n", "100003"}, {"--tree", "pointer", "--depth", "0"}, {"--tree", "pointer", "--depth", "13"}} {
		for _, form := range [][]string{{"--form", "pair"}, {"--form", "both"}, {"--form", "fork"}, {"--form", "pair", "--as-written"}, {"--form", "both", "--as-written"}} {
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

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "sum", "--tree", "list"},
		{"run", "sum", "--form", "join"},
		{"run", "sum", "--form", "fork", "--as-written"},
		{"run", "sum", "-n", "0"},
		{"run", "sum", "--tree", "pointer", "--depth", "27"},
	} {
		if code, _, stderr := clitest.Exec(t, config, args...); code != 2 || !strings.Contains(stderr, "sum: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message naming the program", args, code, stderr)
		}
	}
}

// BenchmarkTreeSum: the two trees of the finest grain, 10 M single leaves
// by halving a range and a pointer tree of 2^20-1 nodes, with Pair and
// Both through their generated cutoff (and as written), against a
// registered task's Fork, on 1 and 2 workers (bench/README.md).
func BenchmarkTreeSum(b *testing.B) {
	const leaves, depth = 10_000_000, 20
	wantRange := rangeSerial(0, leaves)
	var count int64
	root := makeTree(depth, &count)
	wantTree := count * (count + 1) / 2
	for _, workers := range []int{1, 2} {
		rt := tsys.New(tsys.Workers(workers), tsys.Inline(inline.Default()))
		for _, form := range []string{"fork", "pair", "both", "pair-as-written", "both-as-written"} {
			f, asWritten := strings.CutSuffix(form, "-as-written")
			b.Run(fmt.Sprintf("tree=range/form=%s/workers=%d", form, workers), func(b *testing.B) {
				for b.Loop() {
					if v, _, err := runRange(context.Background(), rt, f, asWritten, leaves); err != nil || v != wantRange {
						b.Fatalf("sum %d, %v; want %d", v, err, wantRange)
					}
				}
			})
			b.Run(fmt.Sprintf("tree=pointer/form=%s/workers=%d", form, workers), func(b *testing.B) {
				for b.Loop() {
					if v, _, err := runTree(context.Background(), rt, f, asWritten, root); err != nil || v != wantTree {
						b.Fatalf("sum %d, %v; want %d", v, err, wantTree)
					}
				}
			})
		}
	}
}
