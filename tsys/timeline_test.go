package tsys_test

import (
	"context"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/tsys"
)

// TestTimelineLeavesOutWaiting: a task that blocks in Get shows on the
// timeline as the stretches it really ran, not as one bar across its
// waits, during which its worker ran other frames. waitEach spends ~90% of
// its life waiting for sleeping leaves.
func TestTimelineLeavesOutWaiting(t *testing.T) {
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	rt.Pool().SetTimeline(sched.NewTimeline(10000))
	defer rt.Pool().SetTimeline(nil)
	begin := time.Now()
	if _, st, err := tsys.Run(context.Background(), rt, waitEach, 20); err != nil || st.BlockedWaits < 5 {
		t.Fatalf("run: %v, %d waits blocked (want some)", err, st.BlockedWaits)
	}
	wall := time.Since(begin)
	stretches, ran := 0, time.Duration(0)
	for s := range rt.Pool().TimelineData("").AllSpans() {
		if s.Name == "test.waitEach" {
			stretches++
			ran += time.Duration(s.End - s.Begin)
		}
	}
	if stretches < 2 {
		t.Errorf("the root task shows as %d stretch(es): its waits are not cut out", stretches)
	}
	if ranFor := ran; ranFor > wall/2 {
		t.Errorf("the root task shows as running %v of a %v run, though it mostly waited", ranFor, wall)
	}
}
