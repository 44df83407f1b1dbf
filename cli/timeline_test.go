package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/report"
	"github.com/tsys-go/tsys/internal/sched"
)

// TestTimelineDropsSaySo: a timeline that dropped events at the default
// cap says on stderr how many it kept and dropped, the memory the cap
// bounds it to (64 MiB a worker), and what to do; one that dropped none
// says nothing. The default cap is the events that fit 64 MiB.
func TestTimelineDropsSaySo(t *testing.T) {
	if timelineEvents*sched.TimelineEventBytes != 64<<20 {
		t.Errorf("the default cap %d events of %d bytes is not 64 MiB", timelineEvents, sched.TimelineEventBytes)
	}
	path := filepath.Join(t.TempDir(), "trace.json")
	for _, c := range []struct {
		dropped int64
		want    []string
	}{
		{12345, []string{"first 1048576 events", "64 MiB a worker", "12345 more were dropped", "raise --timeline-cap", "shorter run"}},
		{0, nil},
	} {
		var stderr bytes.Buffer
		d := sched.TimelineData{Node: "", Workers: 2, CapPerWorker: timelineEvents, Dropped: c.dropped}
		if err := writeTimeline(path, "tsys test", []report.TracePart{{Data: d}}, &stderr); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("dropped %d: stderr lacks %q: %s", c.dropped, w, stderr.String())
			}
		}
		if c.want == nil && stderr.Len() > 0 {
			t.Errorf("nothing dropped, yet stderr says %s", stderr.String())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var trace struct {
			OtherData map[string]any `json:"otherData"`
		}
		if err := json.Unmarshal(b, &trace); err != nil || trace.OtherData["events_dropped_at_caps"] != float64(c.dropped) {
			t.Errorf("dropped %d: the file's otherData %v (%v)", c.dropped, trace.OtherData, err)
		}
	}
	if got := memory(100 * sched.TimelineEventBytes); got != "7 KiB" {
		t.Errorf("a cap of 100 bounds %s, want 7 KiB", got)
	}
}
