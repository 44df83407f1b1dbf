package nqueens

import (
	"fmt"

	"github.com/tsys-go/tsys/tsys"
)

// Board is a partial placement: the columns and diagonals its queens
// attack, already shifted for the next row; it is complete when every
// column is taken. Four fields, as package tsys advises for a task's
// argument: Go keeps a struct of up to four in registers, and copies a
// larger one through memory at every call, in loads that wait for the
// stores before them (bench/README.md, "Natural code").
type Board struct {
	All   uint32 // the board's columns
	Cols  uint32
	Diag1 uint32 // attacked squares moving down-left
	Diag2 uint32 // attacked squares moving down-right
}

// Task counts the completions of a partial placement: place's natural
// code, registered by its fast clone's name. go generate writes placeClone
// (tsys_clone.go) from place, the search with each Fork a plain call and
// each Join the value, which runs while enough tasks are ready (package
// internal/clonegen).
var Task *tsys.Task[Board, int64]

func init() { Task = tsys.Register("nqueens", placeClone) }

//go:generate go run github.com/tsys-go/tsys/cmd/tsysclone

// MaxN is the largest board handled (masks are 32 bits; the counts are
// known up to 27).
const MaxN = 27

// Start is the empty board of size n.
func Start(n int) Board { return Board{All: uint32(1)<<n - 1} }

func (b Board) free() uint32 {
	return b.All &^ (b.Cols | b.Diag1 | b.Diag2)
}

func (b Board) next(bit uint32) Board {
	return Board{All: b.All, Cols: b.Cols | bit, Diag1: (b.Diag1 | bit) << 1, Diag2: (b.Diag2 | bit) >> 1}
}

func place(c *tsys.Ctx, b Board) int64 {
	if b.Cols == b.All {
		return 1
	}
	if b.All&^(b.Cols|b.Diag1|b.Diag2) == 0 {
		return 0 // a dead end, most placements are: tested before the clone asks anything
	}
	// Most forks run as plain calls and come back ready: add those at
	// once, and keep only the others (a few: the deque holds K). In the
	// clone every fork is ready, and pending stays empty: nothing to zero
	// or to grow.
	var pending []tsys.Forked[int64]
	var total int64
	for free := b.free(); free != 0; free &= free - 1 {
		f := Task.Fork(c, b.next(free&-free))
		if f.Ready() {
			total += f.Join(c)
		} else {
			pending = append(pending, f)
		}
	}
	for i := len(pending) - 1; i >= 0; i-- { // newest first: it may still be in the deque
		total += pending[i].Join(c)
	}
	return total
}

// Serial is the plain recursive version: the T_S baseline.
func Serial(b Board) int64 {
	if b.Cols == b.All {
		return 1
	}
	var total int64
	for free := b.free(); free != 0; free &= free - 1 {
		total += Serial(b.next(free & -free))
	}
	return total
}

// Known holds the published numbers of solutions (OEIS A000170) for
// n = 0..27.
var Known = [...]int64{1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712,
	365596, 2279184, 14772512, 95815104, 666090624, 4968057848, 39029188884,
	314666222712, 2691008701644, 24233937684440, 227514171973736,
	2207893435808352, 22317699616364044, 234907967154122528}

// Validate checks n.
func Validate(n int) error {
	if n < 1 || n > MaxN {
		return fmt.Errorf("nqueens: -n %d out of range: want 1..%d", n, MaxN)
	}
	return nil
}
