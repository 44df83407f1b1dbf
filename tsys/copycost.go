package tsys

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/runtimecore"
)

// Under the check of copies (TSYS_CHECK_COPIES) every task that may cross nodes gets a copy of its
// argument and result. A task whose argument is a big structure (a whole
// slice, a tree held by a pointer) copies all of it per task, which can
// make a test suite crawl: a task whose copies pass one of these bounds is
// reported, once, with what to do.
const (
	// largeCopy is the size of an encoded copy that is worth a word: the
	// first such copy is reported.
	largeCopy = 1 << 20
	// slowCopy is the time of one copy that is worth a word, when
	// slowCopies copies in a row take it: one slow copy alone is more
	// likely a worker descheduled on a busy machine than a costly type.
	slowCopy   = time.Millisecond
	slowCopies = 3
)

// copyCost watches a task's copies and reports, once, that they cost
// much. Workers update it at once; a count that races only delays or
// hastens the one report.
type copyCost struct {
	slowInRow atomic.Int32
	warned    atomic.Bool
}

// observe looks at one copy of the task's argument or result (what), n
// bytes encoded in took.
func (c *copyCost) observe(task, what string, n int, took time.Duration) {
	if !c.costly(n, took) || c.warned.Swap(true) {
		return
	}
	slog.Warn("tsys: under "+runtimecore.CheckCopiesEnv+", a task's "+what+" is large or slow to copy, and it is copied each time the task runs; "+
		"give the task less to carry (the part it reads, or indices into data its caller holds), "+
		"or keep it on its node (register it without tsys.ByValue, when its types hold references)",
		"task", task, "bytes", n, "took", took)
}

// costly says whether this copy makes the task worth a warning.
func (c *copyCost) costly(n int, took time.Duration) bool {
	if n > largeCopy {
		return true
	}
	if took <= slowCopy {
		c.slowInRow.Store(0)
		return false
	}
	return c.slowInRow.Add(1) >= slowCopies
}
