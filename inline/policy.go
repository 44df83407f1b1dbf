package inline

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Mode names the three inlining policies.
type Mode uint8

const (
	// Load inlines a spawn when the spawning worker already has at least K
	// ready tasks.
	Load Mode = iota
	// Off never inlines: every spawn creates a task (the T-system without
	// load-based inlining; the cost baseline of a spawn).
	Off
	// Always inlines every spawn: the serial elision of the program run on
	// the runtime, useful to measure the cost of the runtime's call path.
	Always
)

// DefaultK is the ready-task count at which Load starts inlining
// (BenchmarkInlineK; bench/README.md, "Choosing K"): on 2 workers K = 2 is
// the fastest or within noise of it on fib, nqueens and UTS, and fib
// collapses from K = 8, where its deque never fills.
const DefaultK = 2

// Policy is an inlining policy. The zero value is Load with K = 0, which
// inlines everything; use Default or Parse.
type Policy struct {
	mode Mode
	k    int
	// threshold is the ready count from which a spawn is inlined:
	// K for Load, 0 for Always, MaxInt for Off.
	threshold int
}

// Default is load:DefaultK.
func Default() Policy { return LoadK(DefaultK) }

// LoadK inlines when the spawning worker's deque holds at least k ready tasks.
func LoadK(k int) Policy {
	if k < 0 {
		k = 0
	}
	return Policy{mode: Load, k: k, threshold: k}
}

// Never returns the policy that never inlines.
func Never() Policy { return Policy{mode: Off, threshold: math.MaxInt} }

// Everything returns the policy that inlines every spawn.
func Everything() Policy { return Policy{mode: Always, threshold: 0} }

// Mode reports the policy's mode.
func (p Policy) Mode() Mode { return p.mode }

// K reports the Load threshold (0 for the other modes).
func (p Policy) K() int {
	if p.mode != Load {
		return 0
	}
	return p.k
}

// AllowCCall reports whether a spawn made while the spawning worker has
// ready tasks in its deque may run as a direct call.
func (p Policy) AllowCCall(ready int) bool { return ready >= p.threshold }

// AllowCCallKeeping is AllowCCall when the scheduler asks that extra more
// ready tasks be kept stealable (other nodes want work): Load inlines from
// K + extra ready tasks on; Off and Always are not moved by it.
func (p Policy) AllowCCallKeeping(ready, extra int) bool {
	if p.mode == Load {
		return ready >= p.threshold+extra
	}
	return ready >= p.threshold
}

// String gives the policy in the form Parse accepts: "load:4", "off", "always".
func (p Policy) String() string {
	switch p.mode {
	case Off:
		return "off"
	case Always:
		return "always"
	default:
		return "load:" + strconv.Itoa(p.k)
	}
}

// Parse reads "load:K", "load" (K = DefaultK), "off" or "always".
func Parse(s string) (Policy, error) {
	switch s {
	case "off":
		return Never(), nil
	case "always":
		return Everything(), nil
	case "load":
		return Default(), nil
	}
	if rest, ok := strings.CutPrefix(s, "load:"); ok {
		k, err := strconv.Atoi(rest)
		if err != nil || k < 0 {
			return Policy{}, fmt.Errorf("inlining policy %q: K must be a whole number >= 0, as in load:%d", s, DefaultK)
		}
		return LoadK(k), nil
	}
	return Policy{}, fmt.Errorf("unknown inlining policy %q: want load:K, off or always", s)
}
