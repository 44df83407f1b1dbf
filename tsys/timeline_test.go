package tsys_test

import (
	"context"
	"slices"
	"testing"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/tsys"
)

// TestTimelineLeavesOutWaiting: a task that blocks in Get shows on the
// timeline as the stretches it really ran, not as one bar across its
// waits, during which its worker ran other frames. The test counts rather
// than times: each blocked wait must end one stretch of the root task, so
// the root shows as exactly one stretch more than it had blocked waits,
// and the stretches follow one another without overlapping. How much CPU
// the root got in the run is the machine's business and is not asserted:
// on a loaded machine it says nothing about the timeline.
func TestTimelineLeavesOutWaiting(t *testing.T) {
	rt := tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	tsys.Pool(rt).SetTimeline(sched.NewTimeline(10000))
	defer tsys.Pool(rt).SetTimeline(nil)
	_, st, err := tsys.Run(context.Background(), rt, waitEach, 20)
	if err != nil || st.BlockedWaits < 1 {
		t.Fatalf("run: %v, %d waits blocked (want some)", err, st.BlockedWaits)
	}
	var root []sched.TimelineSpan
	for s := range tsys.Pool(rt).View().TimelineData("").AllSpans() {
		if s.Name == "test.waitEach" {
			root = append(root, s)
		}
	}
	if want := int(st.BlockedWaits) + 1; len(root) != want {
		t.Fatalf("the root task shows as %d stretch(es) after %d blocked waits, want %d: its waits are not cut out",
			len(root), st.BlockedWaits, want)
	}
	// The stretches are recorded worker by worker; in time order, each
	// must end before the next begins, or a wait is drawn as running.
	slices.SortFunc(root, func(a, b sched.TimelineSpan) int { return int(a.Begin - b.Begin) })
	for i := 1; i < len(root); i++ {
		if root[i].Begin < root[i-1].End {
			t.Errorf("stretch %d [%d, %d] overlaps stretch %d [%d, %d]",
				i-1, root[i-1].Begin, root[i-1].End, i, root[i].Begin, root[i].End)
		}
	}
}
