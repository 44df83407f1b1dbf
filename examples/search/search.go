package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"

	"github.com/tsys-go/tsys/tsys"
)

// Range is a piece of the search: the nonces [Lo, Hi) of a seed, looked
// through serially once at most Leaf of them are left. FailAt, when in the
// range, is a nonce whose check fails (a fault to see how a failure stops
// the search); -1 for none.
type Range struct {
	Seed, Lo, Hi, Leaf, FailAt int64
	Zeros                      int32
}

// Search finds the smallest nonce of a range whose hash has Zeros leading
// zero bits, or -1, looking through all of it in parallel. It can fail:
// the first c.Fail stops every other piece of the search, on every node,
// and the job returns its error.
var Search *tsys.Task[Range, int64]

// Find is the job's root: the smallest nonce below Hi, looked for window
// by window in order, each window searched in parallel. The order is the
// program's, not the scheduler's: tasks of one window may run in any
// order, and on any node, but no window starts before the one below it
// has found nothing, so the search does no more work than one window
// beyond the serial search's.
var Find *tsys.Task[Window, int64]

// Window is the whole search, looked through Size nonces at a time.
type Window struct {
	Range
	Size int64
}

func init() {
	Search = tsys.Register("search.range", search)
	Find = tsys.Register("search.find", find)
}

func find(c *tsys.Ctx, w Window) int64 {
	for lo := w.Lo; lo < w.Hi; lo += max(w.Size, 1) {
		r := w.Range
		r.Lo, r.Hi = lo, min(lo+max(w.Size, 1), w.Hi)
		if n := Search.Call(c, r); n >= 0 {
			return n
		}
	}
	return -1
}

// faultFrom makes this process a faulty machine: every nonce from it on
// fails here (SEARCH_FAULT_FROM=K in a node's environment), to see a
// failure on another node reach the job's root and stop the job.
var faultFrom = int64(math.MaxInt64)

func init() {
	if v, err := strconv.ParseInt(os.Getenv("SEARCH_FAULT_FROM"), 10, 64); err == nil {
		faultFrom = v
	}
}

// ErrFault is the error of the nonce --fail-at names, or of a faulty
// node (SEARCH_FAULT_FROM).
type ErrFault struct{ Nonce int64 }

func (e *ErrFault) Error() string {
	return fmt.Sprintf("checking nonce %d: a fault (--fail-at or SEARCH_FAULT_FROM)", e.Nonce)
}

func search(c *tsys.Ctx, r Range) int64 {
	if r.Hi-r.Lo <= max(r.Leaf, 1) {
		n, err := scan(c.Context(), r)
		if err != nil {
			c.Fail(err) // unwinds this task, and its forks' parents
		}
		return n
	}
	mid := r.Lo + (r.Hi-r.Lo)/2
	low := Search.Fork(c, Range{r.Seed, r.Lo, mid, r.Leaf, r.FailAt, r.Zeros})
	high := search(c, Range{r.Seed, mid, r.Hi, r.Leaf, r.FailAt, r.Zeros})
	if l := low.Join(c); l >= 0 {
		return l
	}
	return high
}

// pollEvery is how many hashes a leaf checks between looks at its job's
// context: a few hundred microseconds of work.
const pollEvery = 1024

// scan looks through a leaf's nonces in order, returning early, with the
// cause, when the job has failed or ended.
func scan(ctx context.Context, r Range) (int64, error) {
	for n := r.Lo; n < r.Hi; n++ {
		if (n-r.Lo)%pollEvery == 0 && ctx.Err() != nil {
			return -1, context.Cause(ctx)
		}
		if n == r.FailAt || n >= faultFrom {
			return -1, &ErrFault{Nonce: n}
		}
		if leadingZeros(r.Seed, n) >= int(r.Zeros) {
			return n, nil
		}
	}
	return -1, nil
}

// leadingZeros is the number of leading zero bits of SHA-256(seed, nonce).
func leadingZeros(seed, nonce int64) int {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(seed))
	binary.LittleEndian.PutUint64(b[8:], uint64(nonce))
	h := sha256.Sum256(b[:])
	z := 0
	for i := 0; i < len(h); i += 8 {
		w := binary.BigEndian.Uint64(h[i:])
		z += bits.LeadingZeros64(w)
		if w != 0 {
			break
		}
	}
	return z
}
