package tsys_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/sched"
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
	var buf bytes.Buffer
	if err := rt.Pool().WriteTimeline(&buf, "test"); err != nil {
		t.Fatal(err)
	}
	var trace struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			Dur  float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &trace); err != nil {
		t.Fatal(err)
	}
	stretches, ran := 0, 0.0
	for _, e := range trace.TraceEvents {
		if e.Ph == "X" && e.Name == "test.waitEach" {
			stretches++
			ran += e.Dur
		}
	}
	if stretches < 2 {
		t.Errorf("the root task shows as %d stretch(es): its waits are not cut out", stretches)
	}
	if ranFor := time.Duration(ran * 1e3); ranFor > wall/2 {
		t.Errorf("the root task shows as running %v of a %v run, though it mostly waited", ranFor, wall)
	}
}
