// Command search finds the smallest nonce whose SHA-256 hash, with a
// seed, starts with a number of zero bits: a search split into ranges,
// that stops at the first failure, on one machine or a cluster of its own
// binary.
//
//	go run ./examples/search run search --zeros 20
//	go run ./examples/search run search --zeros 40 --fail-at 5000000
//
// The second gives up as soon as the piece holding nonce 5,000,000 fails,
// though the search would take hours: the failure cancels every other
// piece, on every node, and the job exits 1 with the error. A node
// started with SEARCH_FAULT_FROM=K in its environment fails on every
// nonce from K on, as a faulty machine would: its failure reaches the
// job's root the same way.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

func main() { cli.Main(config) }

var config = cli.Config{Name: "search", Programs: []cli.Program{{
	Name:    "search",
	Summary: "smallest nonce whose SHA-256 starts with Z zero bits (--zeros Z --limit N --fail-at K)",
	Options: func() cli.Options { return new(options) },
}}}

// options are a run's options, bound to its flags: the job's own fields,
// and the zero bits wanted as the flag takes them.
type options struct {
	j     job
	zeros int
}

func (o *options) Flags(fs *flag.FlagSet) {
	fs.Int64Var(&o.j.r.Seed, "seed", 1, "seed hashed with each nonce")
	fs.IntVar(&o.zeros, "zeros", 16, "leading zero bits wanted")
	fs.Int64Var(&o.j.r.Hi, "limit", 1<<40, "look at the nonces below this")
	fs.Int64Var(&o.j.r.Leaf, "leaf", 1<<12, "ranges of at most this many nonces are looked through serially")
	fs.Int64Var(&o.j.size, "window", 1<<18, "nonces searched in parallel at a time, in order")
	fs.Int64Var(&o.j.r.FailAt, "fail-at", -1, "make checking this nonce fail, to see a failure stop the search (-1: none)")
}

func (o *options) Job() (cli.Job, error) {
	j := o.j
	if o.zeros < 0 || o.zeros > 256 || j.r.Hi < 0 || j.r.Leaf < 1 || j.size < 1 {
		return nil, fmt.Errorf("--zeros %d, --limit %d, --leaf %d, --window %d: want 0 <= zeros <= 256, limit >= 0, leaf and window >= 1", o.zeros, j.r.Hi, j.r.Leaf, j.size)
	}
	j.r.Zeros = int32(o.zeros)
	return j, nil
}

type job struct {
	r    Range
	size int64
}

func (j job) Params() map[string]any {
	return map[string]any{"seed": j.r.Seed, "zeros": j.r.Zeros, "limit": j.r.Hi, "leaf": j.r.Leaf, "window": j.size, "fail_at": j.r.FailAt}
}

func (j job) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	n, st, err := tsys.Run(ctx, rt, Find, Window{Range: j.r, Size: j.size})
	return result(n), st, err
}

// Serial looks through the nonces in order, as one leaf.
func (j job) Serial() (cli.Result, error) {
	n, err := scan(context.Background(), j.r)
	return result(n), err
}

// serialLimit is the most nonces Verify looks through itself, to check
// that none below the answer qualifies.
const serialLimit = 1 << 22

// Verify checks the answer's hash, and, for a small enough answer, that
// no smaller nonce qualifies.
func (j job) Verify(r cli.Result) (bool, error) {
	n := r.Value.(int64)
	if n >= 0 && leadingZeros(j.r.Seed, n) < int(j.r.Zeros) {
		return true, fmt.Errorf("nonce %d has %d leading zero bits, not %d", n, leadingZeros(j.r.Seed, n), j.r.Zeros)
	}
	end := n
	if n < 0 {
		end = j.r.Hi
	}
	if end > serialLimit {
		return n >= 0, nil
	}
	want, err := scan(context.Background(), Range{Seed: j.r.Seed, Hi: end, FailAt: -1, Zeros: j.r.Zeros})
	if err != nil {
		return true, err
	}
	if want >= 0 {
		return true, errors.New("a smaller nonce qualifies: " + fmt.Sprint(want))
	}
	return true, nil
}

func result(n int64) cli.Result {
	if n < 0 {
		return cli.Result{Value: n, Text: "no nonce qualifies"}
	}
	return cli.Result{Value: n, Text: fmt.Sprintf("nonce %d", n)}
}
