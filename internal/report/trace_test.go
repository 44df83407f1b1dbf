package report

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/tsys-go/tsys/internal/runtimecore"
	"io"
	"math"
	"runtime"
	"testing"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/tsys"
)

// tree runs a binary tree of 2^n tasks, each a frame on the timeline.
var tree *tsys.Task[int, int]

func init() {
	tree = tsys.Register("report.test.tree", func(c *tsys.Ctx, n int) int {
		if n == 0 {
			return 1
		}
		a, b := tree.Fork(c, n-1), tree.Fork(c, n-1)
		return b.Join(c) + a.Join(c)
	})
}

// liveHeap is the heap's live bytes, after a collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// allocated is what the process has allocated in all so far.
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// TestTimelineMemoryBound: a run recorded past its cap keeps the cap's
// events, and recording them and writing the trace together cost no more
// than half of sched.TimelineEventBytes an event (the other half is the
// collector's headroom): the events are compact, read in place, and the
// trace is streamed.
func TestTimelineMemoryBound(t *testing.T) {
	const limit, depth = 50_000, 17
	const frames = 1<<(depth+1) - 1 // past the cap
	rt := tsys.New(tsys.Workers(1), tsys.Inline(inline.Never()))
	// A first run, unrecorded, leaves the runtime's own memory in place.
	if _, _, err := tsys.Run(context.Background(), rt, tree, depth); err != nil {
		t.Fatal(err)
	}
	before := liveHeap()
	pool := (*runtimecore.Runtime)(rt).Main()
	pool.SetTimeline(sched.NewTimeline(limit))
	defer pool.SetTimeline(nil)
	if _, _, err := tsys.Run(context.Background(), rt, tree, depth); err != nil {
		t.Fatal(err)
	}
	d := pool.View().TimelineData("")
	recorded := int64(liveHeap()) - int64(before)
	var out countingWriter
	start := allocated()
	dropped, err := WriteTrace(&out, "tree", []TracePart{{Data: d}})
	written := int64(allocated() - start)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for range d.AllSpans() {
		kept++
	}
	if kept != limit || dropped < frames-limit {
		t.Errorf("kept %d events and dropped %d, want %d kept and at least %d dropped", kept, dropped, limit, frames-limit)
	}
	perEvent := float64(recorded+written) / limit
	t.Logf("%.1f bytes an event: %d recorded, %d allocated writing %d bytes of trace", perEvent, recorded, written, out.n)
	if perEvent > sched.TimelineEventBytes/2 {
		t.Errorf("%.1f bytes an event recorded and written, want at most %d", perEvent, sched.TimelineEventBytes/2)
	}
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n += int64(len(b))
	return len(b), nil
}

// TestTraceEventJSON: the streamed events are what encoding/json writes
// for them, including the floats it writes in exponent form, the strings
// it escapes, and the fields omitempty leaves out.
func TestTraceEventJSON(t *testing.T) {
	tw := &traceWriter{names: map[string][]byte{}}
	for _, e := range []traceEvent{
		{Name: "uts.visit", Cat: "task", Ph: "X", Ts: 1234.567, Dur: 0.001, Pid: 1, Tid: 3},
		{Name: "idle", Ph: "X", Ts: 0, Dur: 0, Pid: 2},
		{Name: `<a & "b">` + "\u2028\x01é", Ph: "s", Ts: -5e-7, Dur: 1e21, Pid: 1, ID: 42, Bp: "e"},
		{Name: "tiny", Ph: "f", Ts: 1e-9, Dur: 123456789012345678, ID: math.MaxUint64},
		{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": "node a (root)", "sort_index": 2}},
	} {
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := tw.appendEvent(nil, &e); !bytes.Equal(got, want) {
			t.Errorf("event %+v:\n got %s\nwant %s", e, got, want)
		}
	}
}

// TestWriteTraceFormat: a trace of a decoded node's timeline (spans,
// steals, lends, messages) is one JSON object whose every event is as
// encoding/json writes it, the steal and lend arrows paired, and which
// states the cap and what was dropped; a failing writer's error comes
// back.
func TestWriteTraceFormat(t *testing.T) {
	var d sched.TimelineData
	in := `{"node":"a","start_unix_ns":1000,"workers":2,"cap_per_worker":10,"dropped":3,
		"spans":[{"w":0,"n":"uts.visit","b":0,"e":1500},{"w":1,"n":"","b":100,"e":200}],
		"steals":[{"thief":1,"victim":0,"id":1,"at":150}],
		"notes":[{"at_ns":300,"name":"lent uts.visit","flow":"a/1","flow_start":true,"to":"b"},{"at_ns":400,"name":"borrowed uts.visit","flow":"a/1","from":"b"},{"at_ns":500,"name":"stealRequest","to":"b","bytes":40}]}`
	if err := json.Unmarshal([]byte(in), &d); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	dropped, err := WriteTrace(&buf, "test", []TracePart{{Data: d}})
	if err != nil || dropped != 3 {
		t.Fatalf("dropped %d, %v", dropped, err)
	}
	var file struct {
		DisplayTimeUnit string            `json:"displayTimeUnit"`
		OtherData       map[string]any    `json:"otherData"`
		TraceEvents     []json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &file); err != nil {
		t.Fatalf("the trace does not parse: %v\n%s", err, buf.Bytes())
	}
	if file.DisplayTimeUnit != "ms" || file.OtherData["events_cap_per_worker"] != 10.0 || file.OtherData["events_dropped_at_caps"] != 3.0 {
		t.Errorf("displayTimeUnit %q, otherData %v", file.DisplayTimeUnit, file.OtherData)
	}
	cats := map[string]int{}
	flows := map[string]map[uint64]int{} // category: id: ends
	for _, raw := range file.TraceEvents {
		var e traceEvent
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		if want, _ := json.Marshal(e); !bytes.Equal(raw, want) {
			t.Errorf("event written as %s, encoding/json writes %s", raw, want)
		}
		switch e.Ph {
		case "X":
			cats[e.Cat]++
		case "s", "f":
			if flows[e.Cat] == nil {
				flows[e.Cat] = map[uint64]int{}
			}
			flows[e.Cat][e.ID]++
		}
		if e.Name == "stealRequest" && (e.Args["to"] != "b" || e.Args["bytes"] != 40.0) {
			t.Errorf("a message's args %v", e.Args)
		}
	}
	if cats["task"] != 1 || cats["idle"] != 1 || cats["message"] != 3 {
		t.Errorf("slices by category %v", cats)
	}
	if len(flows["steal"]) != 1 || len(flows["lend"]) != 1 || flows["steal"][1] != 2 || flows["lend"][2] != 2 {
		t.Errorf("arrows %v: want one steal and one lend, both ends each", flows)
	}

	if _, err := WriteTrace(failingWriter{}, "test", []TracePart{{Data: d}}); err == nil {
		t.Error("a writer's error was not returned")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }
