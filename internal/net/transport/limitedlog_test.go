package transport

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/proctest"
)

// TestLimitedLogBurstThenOneASecond: on an injected clock, a flood of one
// kind logs the burst, then one line a second saying how many it held
// back, and does not silence another kind.
func TestLimitedLogBurstThenOneASecond(t *testing.T) {
	var buf proctest.LockedBuffer
	r := NewLimitedLog(slog.New(slog.NewTextHandler(&buf, nil)))
	now := time.Unix(1000, 0)
	r.b.now = func() time.Time { return now }
	for range 1000 {
		r.With("peer", "x").Warn("flood")
	}
	if got := strings.Count(buf.String(), "msg=flood"); got != logBurst {
		t.Fatalf("a flood at one instant logged %d lines, want the burst, %d:\n%s", got, logBurst, buf.String())
	}
	r.Info("other kind")
	if !strings.Contains(buf.String(), `msg="other kind"`) {
		t.Fatalf("a flood of one kind silenced another:\n%s", buf.String())
	}
	now = now.Add(time.Second)
	for range 1000 {
		r.Warn("flood")
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if got := strings.Count(buf.String(), "msg=flood"); got != logBurst+1 {
		t.Fatalf("a second later the flood logged %d lines in all, want %d:\n%s", got, logBurst+1, buf.String())
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "not_logged=990") {
		t.Fatalf("the line after the burst does not say it held back 990: %s", last)
	}
	var zero LimitedLog
	zero.Warn("nothing") // logs nowhere, does not panic
}
