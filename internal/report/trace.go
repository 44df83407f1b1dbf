package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/sched"
)

// TracePart is one node's timeline for WriteTrace, and how far its clock
// runs ahead of the root's (0 for the root, and about 0 on one host).
type TracePart = cluster.NodeTimeline

// traceEvent is one event of Chrome's trace-event format, which Perfetto
// and chrome://tracing open. appendJSON writes it as encoding/json would.
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
//
// It streams: each event is written as it is read from the timelines,
// through a buffer of traceBuffer bytes, so that writing takes no memory per event (see
// sched.TimelineEventBytes).
func WriteTrace(w io.Writer, title string, parts []TracePart) (dropped int64, err error) {
	if len(parts) == 0 {
		return 0, fmt.Errorf("writing the timeline: no node recorded one")
	}
	caps := 0
	for _, part := range parts {
		dropped += part.Data.Dropped
		caps = max(caps, part.Data.CapPerWorker)
	}
	// The keys in encoding/json's order for a map, as the file has always
	// had them: otherData before the events, whose count it does not need.
	other, err := json.Marshal(map[string]any{
		"title":                  title,
		"nodes":                  len(parts),
		"events_cap_per_worker":  caps,
		"events_dropped_at_caps": dropped,
	})
	if err != nil {
		return dropped, fmt.Errorf("writing the timeline: %w", err)
	}
	tw := &traceWriter{w: w, buf: make([]byte, 0, traceBuffer+1<<10), names: map[string][]byte{}}
	tw.buf = append(tw.buf, `{"displayTimeUnit":"ms","otherData":`...)
	tw.buf = append(tw.buf, other...)
	tw.buf = append(tw.buf, `,"traceEvents":[`...)
	tw.writeParts(title, parts)
	tw.buf = append(tw.buf, "]}\n"...)
	tw.flush()
	if tw.err != nil {
		return dropped, fmt.Errorf("writing the timeline: %w", tw.err)
	}
	return dropped, nil
}

// traceBuffer is how many bytes of the trace are written at a time.
const traceBuffer = 64 << 10

// traceWriter writes trace events one by one into w, keeping the first
// error.
type traceWriter struct {
	w      io.Writer
	buf    []byte
	events int
	err    error
	// names holds each distinct name JSON-quoted, to quote it once.
	names map[string][]byte
}

func (tw *traceWriter) writeParts(title string, parts []TracePart) {
	base := parts[0].Data.Start
	flows := map[string]uint64{} // cross-node flow keys to trace ids
	nextID := uint64(1)
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
		tw.event(&traceEvent{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": name}})
		tw.event(&traceEvent{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": i}})
		tw.event(&traceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: network, Args: map[string]any{"name": "messages"}})
		for wk := 0; wk < d.Workers; wk++ {
			tw.event(&traceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: wk, Args: map[string]any{"name": fmt.Sprintf("worker %d", wk)}})
		}
		for s := range d.AllSpans() {
			e := traceEvent{Name: s.Name, Cat: "task", Ph: "X", Pid: pid, Tid: s.Worker, Ts: ts(s.Begin), Dur: float64(s.End-s.Begin) / 1e3}
			if s.Name == "" {
				e.Name, e.Cat = "idle", "idle"
			}
			tw.event(&e)
			if tw.err != nil {
				return
			}
		}
		for st := range d.AllSteals() {
			id := nextID
			nextID++
			at := ts(st.At)
			tw.event(&traceEvent{Name: "steal", Cat: "steal", Ph: "s", Pid: pid, Tid: st.Victim, Ts: at, ID: id})
			tw.event(&traceEvent{Name: "steal", Cat: "steal", Ph: "f", Bp: "e", Pid: pid, Tid: st.Thief, Ts: at, ID: id})
			if tw.err != nil {
				return
			}
		}
		for n := range d.AllNotes() {
			at := ts(int64(n.At))
			// A short slice for the note, so that an arrow has a slice to
			// start or end on.
			tw.event(&traceEvent{Name: n.Name, Cat: "message", Ph: "X", Pid: pid, Tid: network, Ts: at, Dur: 1, Args: noteArgs(n)})
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
			tw.event(&e)
			if tw.err != nil {
				return
			}
		}
	}
}

// noteArgs are a note's arguments in the trace: where a message or a lend
// went, a message's size, where a borrowed task came from.
func noteArgs(n sched.Note) map[string]any {
	args := map[string]any{}
	if n.To != "" {
		args["to"] = n.To
	}
	if n.From != "" {
		args["from"] = n.From
	}
	if n.Bytes != 0 {
		args["bytes"] = n.Bytes
	}
	if len(args) == 0 {
		return nil
	}
	return args
}

// event writes e, after a comma if it is not the first.
func (tw *traceWriter) event(e *traceEvent) {
	if tw.err != nil {
		return
	}
	if tw.events > 0 {
		tw.buf = append(tw.buf, ',')
	}
	tw.events++
	tw.buf = tw.appendEvent(tw.buf, e)
	if len(tw.buf) >= traceBuffer {
		tw.flush()
	}
}

func (tw *traceWriter) flush() {
	if tw.err == nil {
		_, tw.err = tw.w.Write(tw.buf)
	}
	tw.buf = tw.buf[:0]
}

// appendEvent appends e's JSON as json.Marshal writes it: the fields in
// order, the empty ones left out as their omitempty says.
func (tw *traceWriter) appendEvent(b []byte, e *traceEvent) []byte {
	b = append(b, `{"name":`...)
	b = tw.appendName(b, e.Name)
	if e.Cat != "" {
		b = append(b, `,"cat":`...)
		b = tw.appendName(b, e.Cat)
	}
	b = append(b, `,"ph":`...)
	b = tw.appendName(b, e.Ph)
	b = append(b, `,"ts":`...)
	b = appendFloat(b, e.Ts)
	if e.Dur != 0 {
		b = append(b, `,"dur":`...)
		b = appendFloat(b, e.Dur)
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(e.Pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(e.Tid), 10)
	if e.ID != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendUint(b, e.ID, 10)
	}
	if e.Bp != "" {
		b = append(b, `,"bp":`...)
		b = tw.appendName(b, e.Bp)
	}
	if len(e.Args) > 0 {
		args, err := json.Marshal(e.Args)
		if err != nil {
			tw.err = err
		}
		b = append(b, `,"args":`...)
		b = append(b, args...)
	}
	return append(b, '}')
}

// appendName appends s JSON-quoted, quoting each distinct s once: the
// names are few (task kinds, categories, messages) and repeat.
func (tw *traceWriter) appendName(b []byte, s string) []byte {
	q, ok := tw.names[s]
	if !ok {
		q, _ = json.Marshal(s) // a string always encodes
		tw.names[s] = q
	}
	return append(b, q...)
}

// appendFloat appends f as encoding/json does: the shortest decimal that
// reads back as f, in exponent form only for the very small and large.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
