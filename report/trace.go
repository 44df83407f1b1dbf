package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/tsys-go/tsys/cluster"
)

// TracePart is one node's timeline for WriteTrace, and how far its clock
// runs ahead of the root's (0 for the root, and about 0 on one host).
type TracePart = cluster.NodeTimeline

// traceEvent is one event of Chrome's trace-event format, which Perfetto
// and chrome://tracing open.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   uint64         `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteTrace writes the nodes' timelines as one trace, the root's first:
// a process per node, a track per worker and one for the node's messages
// (after the workers), times in microseconds from the root's start,
// aligned by each part's offset. Task frames and idle stretches are
// slices; a steal between two workers, and a lend from one node to
// another, is an arrow. It returns how many events the nodes dropped at
// their caps, which the file states too.
func WriteTrace(w io.Writer, title string, parts []TracePart) (dropped int64, err error) {
	if len(parts) == 0 {
		return 0, fmt.Errorf("writing the timeline: no node recorded one")
	}
	base := parts[0].Data.Start
	var events []traceEvent
	flows := map[string]uint64{} // cross-node flow keys to trace ids
	nextID := uint64(1)
	caps := 0
	for i, part := range parts {
		d := part.Data
		pid := i + 1
		ts := func(ns int64) float64 {
			return float64(d.Start+ns-int64(part.Offset)-base) / 1e3
		}
		name := "node " + d.Node
		if i == 0 {
			name += " (root)"
		}
		if d.Node == "" {
			name = title
		}
		network := d.Workers
		events = append(events,
			traceEvent{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": name}},
			traceEvent{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": i}},
			traceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: network, Args: map[string]any{"name": "messages"}})
		for wk := 0; wk < d.Workers; wk++ {
			events = append(events, traceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: wk, Args: map[string]any{"name": fmt.Sprintf("worker %d", wk)}})
		}
		for _, s := range d.Spans {
			e := traceEvent{Name: s.Name, Cat: "task", Ph: "X", Pid: pid, Tid: s.Worker, Ts: ts(s.Begin), Dur: float64(s.End-s.Begin) / 1e3}
			if s.Name == "" {
				e.Name, e.Cat = "idle", "idle"
			}
			events = append(events, e)
		}
		for _, st := range d.Steals {
			id := nextID
			nextID++
			at := ts(st.At)
			events = append(events,
				traceEvent{Name: "steal", Cat: "steal", Ph: "s", Pid: pid, Tid: st.Victim, Ts: at, ID: id},
				traceEvent{Name: "steal", Cat: "steal", Ph: "f", Bp: "e", Pid: pid, Tid: st.Thief, Ts: at, ID: id})
		}
		for _, n := range d.Notes {
			at := ts(int64(n.At))
			// A short slice for the note, so that an arrow has a slice to
			// start or end on.
			events = append(events, traceEvent{Name: n.Name, Cat: "message", Ph: "X", Pid: pid, Tid: network, Ts: at, Dur: 1, Args: n.Args})
			if n.Flow == "" {
				continue
			}
			id, ok := flows[n.Flow]
			if !ok {
				id = nextID
				nextID++
				flows[n.Flow] = id
			}
			e := traceEvent{Name: "lend", Cat: "lend", Ph: "s", Pid: pid, Tid: network, Ts: at, ID: id}
			if !n.Start {
				e.Ph, e.Bp = "f", "e"
			}
			events = append(events, e)
		}
		dropped += d.Dropped
		caps = max(caps, d.CapPerWorker)
	}
	out := map[string]any{
		"traceEvents":     events,
		"displayTimeUnit": "ms",
		"otherData": map[string]any{
			"title":                  title,
			"nodes":                  len(parts),
			"events_cap_per_worker":  caps,
			"events_dropped_at_caps": dropped,
		},
	}
	if err := json.NewEncoder(w).Encode(out); err != nil {
		return dropped, fmt.Errorf("writing the timeline: %w", err)
	}
	return dropped, nil
}
