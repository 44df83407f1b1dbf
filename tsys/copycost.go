package tsys

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// Under CheckCopies every task that may cross nodes gets a copy of its
// argument and result. A task whose argument is a big structure (a whole
// slice, a tree held by a pointer) copies all of it per task, which can
// make a test suite crawl: the first copy that passes one of these bounds
// is reported, once per task, with what to do.
const (
	// largeCopy is the size of an encoded copy that is worth a word.
	largeCopy = 1 << 20
	// slowCopy is the time of one copy that is worth a word.
	slowCopy = time.Millisecond
)

// copyCost reports, once, a task's first copy that is large or slow.
type copyCost struct{ warned atomic.Bool }

// observe looks at one copy of the task's argument or result (what), n
// bytes encoded in took.
func (c *copyCost) observe(task, what string, n int, took time.Duration) {
	if !costlyCopy(n, took) || c.warned.Swap(true) {
		return
	}
	slog.Warn("tsys: under "+checkCopiesEnv+", a task copies a large "+what+" each time it runs; "+
		"pass a smaller "+what+" (the part the task reads, or indices into data the task's caller holds), "+
		"or keep the task on its node (register it without tsys.ByValue, when its types hold references)",
		"task", task, "bytes", n, "took", took)
}

// costlyCopy says whether one copy of n bytes that took took is worth a
// warning.
func costlyCopy(n int, took time.Duration) bool { return n > largeCopy || took > slowCopy }
