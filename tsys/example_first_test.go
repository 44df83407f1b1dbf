package tsys_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tsys-go/tsys/tsys"
)

// errFound ends a search at its first solution. It is no failure, but
// Ctx.Fail is how any task ends the job at once: no task starts after
// it, on any node, and the tasks running see it in c.Context().
var errFound = errors.New("found")

// exSpan is a range of candidates [Lo, Hi).
type exSpan struct{ Lo, Hi uint32 }

// exFind looks for the candidate whose hash is exWanted, in the order a
// serial search would: while enough tasks are ready it calls both halves
// in turn, and otherwise forks the later half (for a thief, or for the
// Join) and searches the earlier one now (Register's doc, "Which leaves
// run before the failure").
var exFind *tsys.Task[exSpan, struct{}]

func init() { exFind = tsys.RegisterAction("example.find", exSearch) }

func exSearch(c *tsys.Ctx, s exSpan) {
	if s.Hi-s.Lo <= 1<<12 {
		for x := s.Lo; x < s.Hi; x++ {
			if exHash(x) == exWanted {
				c.Fail(fmt.Errorf("%w: %d", errFound, x)) // does not return
			}
		}
		return
	}
	mid := s.Lo + (s.Hi-s.Lo)/2
	if c.AllowCCall() {
		exFind.Call(c, exSpan{s.Lo, mid})
		exFind.Call(c, exSpan{mid, s.Hi})
		return
	}
	later := exFind.Fork(c, exSpan{mid, s.Hi})
	exFind.Call(c, exSpan{s.Lo, mid})
	later.Join(c)
}

// exHash mixes the bits of x; no two candidates share a hash, so the
// search has one solution.
func exHash(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	return x ^ x>>16
}

var exWanted = exHash(3_000_000)

// A search that stops at its first solution fails the job with a
// sentinel error, and tells the answer from a failure by errors.Is on
// Run's error, a *tsys.TaskError that wraps it. The tasks begun stop at
// once, and no leaf starts after the solution (bench/README.md, "The
// first solution against errgroup"). On a cluster, a solution found on
// another node arrives as a *tsys.ErrRemote, its text only: look for
// errFound's text in its Err there.
func ExampleCtx_Fail_firstSolution() {
	_, _, err := tsys.Run(context.Background(), tsys.New(), exFind, exSpan{0, 1 << 22})
	switch {
	case errors.Is(err, errFound):
		fmt.Println(errors.Unwrap(err)) // the task's own error
	case err != nil:
		fmt.Println("failed:", err)
	default:
		fmt.Println("no solution")
	}
	// Output: found: 3000000
}
