package membership

import (
	"bytes"
	"context"
	"log"
	"log/slog"
	"sync"
	"time"
)

// slogWriter receives memberlist's log lines ("[LEVEL] memberlist: text")
// and forwards each one to slog at debug level, keeping memberlist's own
// level as an attribute.
type slogWriter struct {
	l *slog.Logger
}

func (w slogWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		line := p
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			line, p = p[:i], p[i+1:]
		} else {
			p = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		level := ""
		if line[0] == '[' {
			if j := bytes.IndexByte(line, ']'); j > 0 {
				level = string(line[1:j])
				line = bytes.TrimSpace(line[j+1:])
			}
		}
		line = bytes.TrimPrefix(line, []byte("memberlist: "))
		w.l.LogAttrs(context.Background(), slog.LevelDebug, string(line),
			slog.String("src", "memberlist"), slog.String("mlevel", level))
	}
	return n, nil
}

func newStdLogger(l *slog.Logger) *log.Logger {
	return log.New(slogWriter{l}, "", 0)
}

// logLimiter keeps a repeated warning (memberlist re-offers a refused peer
// on every gossip round) from flooding the log: one line per key per period.
type logLimiter struct {
	mu     sync.Mutex
	last   map[string]time.Time
	period time.Duration
}

func (ll *logLimiter) allow(key string) bool {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	now := time.Now()
	if ll.last == nil {
		ll.last = make(map[string]time.Time)
	}
	if t, ok := ll.last[key]; ok && now.Sub(t) < ll.period {
		return false
	}
	if len(ll.last) > 1024 { // bound memory if many bad peers come and go
		for k, t := range ll.last {
			if now.Sub(t) >= ll.period {
				delete(ll.last, k)
			}
		}
	}
	ll.last[key] = now
	return true
}
