package transport

import (
	"sync"
	"time"
)

// A stranger can open connections as fast as it likes, and each refusal
// is worth a line to the person running the node, but not thousands a
// second: refusals are logged from a bucket of logBurst lines that
// refills at one a second, and each line that gets through says how many
// were held back since the last. The refusals are all counted
// (Stats.RejectedConns, Stats.OverBudgetConns) either way.
const (
	logBurst    = 10
	logInterval = time.Second
)

// logBucket is the bucket of refusal lines. Its zero value is full.
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
