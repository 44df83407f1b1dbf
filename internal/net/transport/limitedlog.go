package transport

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// LimitedLog logs the lines that a stranger can cause: a connection
// that sends garbage, a message that does not decode, a dial that fails
// to an address gossip brought. Each kind of line (its message text) has
// a bucket of its own, the kind the handshake refusals use: 10 lines at
// once, then one a second, each line saying in not_logged how many of its
// kind were held back since the last. A flood of one kind thus costs at
// most a line a second, and does not hide the lines of another. Its
// zero value logs nothing; copies share their buckets.
type LimitedLog struct {
	l *slog.Logger
	b *kindBuckets
	// kind, when set, is the bucket of every line, whatever its text
	// (OfKind).
	kind string
}

// kindBuckets are a LimitedLog's buckets by kind. There are as many as
// the program has texts of lines, so the map stays small.
type kindBuckets struct {
	now   func() time.Time // injected by tests
	mu    sync.Mutex
	kinds map[string]*logBucket
}

// NewLimitedLog returns a LimitedLog writing to l.
func NewLimitedLog(l *slog.Logger) LimitedLog {
	return LimitedLog{l: l, b: &kindBuckets{now: time.Now, kinds: map[string]*logBucket{}}}
}

// With returns a LimitedLog that adds args to every line, sharing r's
// buckets.
func (r LimitedLog) With(args ...any) LimitedLog {
	if r.l == nil {
		return r
	}
	return LimitedLog{l: r.l.With(args...), b: r.b, kind: r.kind}
}

// OfKind returns a LimitedLog, sharing r's buckets, whose lines are all
// of one kind whatever their text: lines that tell of one event in
// different words (the refusals of a connection, by their reason) share
// one bucket, so that a flood that causes them all costs no more lines
// than one that causes one.
func (r LimitedLog) OfKind(kind string) LimitedLog {
	r.kind = kind
	return r
}

// Warn logs msg at level Warn unless its kind's bucket is empty. msg is
// the kind, unless OfKind set one: keep it a constant and put what
// varies in args.
func (r LimitedLog) Warn(msg string, args ...any) { r.log(slog.LevelWarn, msg, args) }

// Info is Warn at level Info.
func (r LimitedLog) Info(msg string, args ...any) { r.log(slog.LevelInfo, msg, args) }

func (r LimitedLog) log(level slog.Level, msg string, args []any) {
	if r.l == nil || !r.l.Enabled(context.Background(), level) {
		return
	}
	kind := r.kind
	if kind == "" {
		kind = msg
	}
	ok, held := r.b.bucket(kind).take(r.b.now())
	if !ok {
		return
	}
	r.l.Log(context.Background(), level, msg, append(args, "not_logged", held)...)
}

func (b *kindBuckets) bucket(kind string) *logBucket {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.kinds[kind]
	if k == nil {
		k = &logBucket{}
		b.kinds[kind] = k
	}
	return k
}
