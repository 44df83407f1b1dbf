package sched

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Timeline records which task frames each worker ran and when, for the
// Chrome trace viewer (chrome://tracing, Perfetto). Recording costs a clock
// read at each start and end of a task frame; inlined spawns are part of
// their caller's frame. A frame whose task blocked in Get shows as one
// stretch per worker it ran on, without the time it waited: while it waits
// its worker runs other frames.
type Timeline struct {
	start time.Time
	// maxPerWorker bounds the memory a long run can take.
	maxPerWorker int
}

// timelineEvent is one task frame run by one worker.
type timelineEvent struct {
	kind       *Kind
	begin, end time.Duration
}

// NewTimeline starts recording at most maxPerWorker events per worker.
func NewTimeline(maxPerWorker int) *Timeline {
	return &Timeline{start: time.Now(), maxPerWorker: maxPerWorker}
}

// SetTimeline makes the pool record its next runs into tl (nil: stop).
func (p *Pool) SetTimeline(tl *Timeline) { p.timeline = tl }

// record adds one finished frame to w's events.
func (tl *Timeline) record(w *Worker, k *Kind, begin time.Time) {
	if len(w.events) >= tl.maxPerWorker {
		return
	}
	w.events = append(w.events, timelineEvent{kind: k, begin: begin.Sub(tl.start), end: time.Since(tl.start)})
}

// WriteJSON writes the pool's recorded events in Chrome's trace-event
// format: one complete ("X") event per task frame, a thread per worker.
func (p *Pool) WriteTimeline(w io.Writer, process string) error {
	type event struct {
		Name string         `json:"name"`
		Ph   string         `json:"ph"`
		Ts   float64        `json:"ts"`
		Dur  float64        `json:"dur,omitempty"`
		Pid  int            `json:"pid"`
		Tid  int            `json:"tid"`
		Args map[string]any `json:"args,omitempty"`
	}
	events := []event{{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": process}}}
	for _, wk := range p.workers {
		events = append(events, event{Name: "thread_name", Ph: "M", Pid: 1, Tid: wk.ID, Args: map[string]any{"name": fmt.Sprintf("worker %d", wk.ID)}})
		for _, e := range wk.events {
			events = append(events, event{Name: e.kind.Name, Ph: "X", Pid: 1, Tid: wk.ID,
				Ts: float64(e.begin.Nanoseconds()) / 1e3, Dur: float64((e.end - e.begin).Nanoseconds()) / 1e3})
		}
	}
	if err := json.NewEncoder(w).Encode(map[string]any{"traceEvents": events, "displayTimeUnit": "ms"}); err != nil {
		return fmt.Errorf("writing the timeline: %w", err)
	}
	return nil
}
