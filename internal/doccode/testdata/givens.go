// The names a doc's Go block may use without declaring them, one type
// each for every doc (README.md, docs/, the doc comments): the usual
// variables of a fragment (c, the running task's Ctx; ctx; rt), and the
// functions and data an example leaves to the reader. A block that
// declares one of these names itself gets its own instead. Each block is
// compiled with this file (TestDocsCompile), not the file on its own:
// package doc is the blocks'.
package doc

import (
	"context"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/net/transport"
	"github.com/tsys-go/tsys/tsys"
)

// What a fragment inside a task has at hand.

var c *tsys.Ctx

var ctx context.Context

var rt *tsys.Runtime

var n int

var lo int

var hi int

// Data and work of the loop examples.

var xs []float64

var out []float64

func f(i int) float64 { return float64(i) }

var rows []string

func check(row string) {}

var field string

var line int

var bins int

func bin(x float64) int { return 0 }

func addCounts(a, b []int) []int { return a }

// The closures of README's "Loops and reductions".

var left func(c *tsys.Ctx) int

var right func(c *tsys.Ctx) int

var sortLeft func(c *tsys.Ctx)

var sortRight func(c *tsys.Ctx)

var identity func() float64

var body func(c *tsys.Ctx, lo, hi int, acc float64) float64

var combine func(a, b float64) float64

var loop *tsys.Loop[float64, float64]

var env float64

// Fibonacci, the first example of every doc, and its generated clone.

var Fib *tsys.Task[int, int64]

func fib(c *tsys.Ctx, n int) int64 { return 0 }

func fibClone(c *tsys.Ctx, n int) int64 { return 0 }

func fibNatural(c *tsys.Ctx, n int) int64 { return 0 }

// A sum over a range halved with Pair, and the clone go generate writes
// of it, with the cutoff of its closure forms.

func leaf(i int) uint64 { return 0 }

func sumClone(c *tsys.Ctx, lo, hi int) uint64 { return 0 }

var mid int

// A search over a range, and a tree.

type Range struct{ Lo, Hi int }

var Search *tsys.Task[Range, int]

func search(c *tsys.Ctx, r Range) int { return 0 }

func scan(c *tsys.Ctx, r Range) int { return 0 }

var first Range

var parts []Range

var second Range

type Tree struct {
	L, R *Tree
	V    int64
}

var t *Tree

func count(c *tsys.Ctx, t *Tree) int { return 0 }

// A task with no result.

type Tile struct{ X, Y, Size int }

func shade(t Tile) []byte { return nil }

func writeTile(t Tile, pixels []byte) {}

// A program's command line.

var cfg cli.Config

var config cli.Config

var sortProgram cli.Program

// The transport's use.

var key []byte

func handle(from string, m *transport.Message) {}

var myType transport.MsgType

var payload []byte
