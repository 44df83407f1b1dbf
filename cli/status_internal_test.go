package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/statusline"
)

// syncBuffer is a buffer the drawing goroutine writes and the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStatusWaitsASecondThenDraws: with the clock the ticks carry, no
// line before the job has run statusAfter; then a line each tick, with
// the rates over the last interval and the progress bar; stop erases it.
func TestStatusWaitsASecondThenDraws(t *testing.T) {
	var out syncBuffer
	start := time.Unix(1000, 0)
	samples := make(chan liveSample, 1)
	ticks := make(chan time.Time)
	stop := drawStatus(statusline.New(&out), func() liveSample { return <-samples }, ticks, start)

	ticks <- start.Add(500 * time.Millisecond) // too early: not sampled (samples is empty, so a sample would block)
	samples <- liveSample{nodes: 2, tasks: 3000, steals: 40, progress: sched.Progress{Done: 25, Total: 100}}
	ticks <- start.Add(time.Second)
	samples <- liveSample{nodes: 2, tasks: 5000, steals: 60, progress: sched.Progress{Done: 50, Total: 100}}
	ticks <- start.Add(3 * time.Second)
	stop()

	lines := strings.Split(out.String(), "\r")
	want := []string{
		"",
		"tsys: 1s, 2 nodes, 3.0k tasks/s, 40 steals/s [=====               ] 25% 25/100\x1b[K",
		"tsys: 3s, 2 nodes, 1.0k tasks/s, 10 steals/s [==========          ] 50% 50/100\x1b[K",
		"\x1b[K",
	}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("status lines:\n got %q\nwant %q", lines, want)
	}
}

// TestStatusText: progress without a total is a count; one node is one.
func TestStatusText(t *testing.T) {
	got := statusText(2500*time.Millisecond, liveSample{nodes: 1, tasks: 2_400_000, progress: sched.Progress{Done: 7}}, liveSample{}, 2*time.Second)
	if want := "tsys: 2.5s, 1 node, 1.2M tasks/s, 0 steals/s, 7 done"; got != want {
		t.Errorf("statusText = %q, want %q", got, want)
	}
}
