package transport

import (
	"sync"
	"time"
)

// A stranger can open connections and send what it likes as fast as it
// likes, and each thing refused is worth a line to the person running the
// node, but not thousands a second: each kind of line (LimitedLog) is
// logged from a bucket of logBurst lines that refills at one a second,
// and each line that gets through says how many were held back since the
// last. What is refused is counted (Stats.RejectedConns,
// Stats.OverBudgetConns, Stats.ProtocolErrors) either way.
const (
	logBurst    = 10
	logInterval = time.Second
)

// refusalKind is the kind, and the text, of the line that refuses a
// connection; the refusals for want of room say why after it (budget.go,
// evict.go) and share its bucket.
const refusalKind = "transport: refused connection"

// logBucket is the bucket of one kind of line. Its zero value is full.
type logBucket struct {
	mu     sync.Mutex
	used   float64 // lines taken from the bucket, refilling over time
	last   time.Time
	held   int
	inited bool
}

// take reports whether a line may be logged at now, and how many lines
// were held back before it.
func (b *logBucket) take(now time.Time) (ok bool, held int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inited {
		b.used = max(0, b.used-float64(now.Sub(b.last))/float64(logInterval))
	}
	b.last, b.inited = now, true
	if b.used+1 > logBurst {
		b.held++
		return false, 0
	}
	b.used++
	held, b.held = b.held, 0
	return true, held
}
