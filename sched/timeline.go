package sched

import (
	"sync"
	"sync/atomic"
	"time"
)

// Timeline records what each worker did and when, for a trace viewer
// (Perfetto, chrome://tracing; package report writes the file): the task
// frames it ran, its idle stretches, and the tasks it stole from another
// worker. The node's engine adds its own events (Note): messages, and
// tasks lent to or borrowed from other nodes.
//
// Recording costs a clock read at each start and end of a task frame and
// of an idle stretch; inlined spawns are part of their caller's frame. A
// frame whose task blocked in Get shows as one stretch per worker it ran
// on, without the time it waited: while it waits its worker runs other
// frames.
//
// A long run stays bounded: each worker keeps its first maxPerWorker
// events, and the node its first maxPerWorker notes; what did not fit is
// counted in Dropped, which the trace states.
type Timeline struct {
	start        time.Time
	maxPerWorker int
	// steals numbers the local steals, whose two ends the trace joins by
	// an arrow.
	steals  atomic.Uint64
	dropped atomic.Int64

	mu    sync.Mutex
	notes []Note
}

// NewTimeline starts recording at most maxPerWorker events per worker.
func NewTimeline(maxPerWorker int) *Timeline {
	return &Timeline{start: time.Now(), maxPerWorker: maxPerWorker}
}

// SetTimeline makes the pool record its next runs into tl (nil: stop).
// Not during a run.
func (p *Pool) SetTimeline(tl *Timeline) { p.timeline.Store(tl) }

// Timeline is the pool's timeline, nil when none records.
func (p *Pool) Timeline() *Timeline { return p.timeline.Load() }

// What a worker's timeline event is.
const (
	eventFrame  uint8 = iota // a task frame ran (kind is its task)
	eventIdle                // the worker looked for work or was parked
	eventStolen              // the worker stole a task from worker peer
)

// timelineEvent is one event of one worker.
type timelineEvent struct {
	what       uint8
	kind       *Kind
	peer       int32  // eventStolen: the victim
	steal      uint64 // eventStolen: the steal's number
	begin, end time.Duration
}

// add appends e to w's events, or counts it dropped. Holder only.
func (tl *Timeline) add(w *Worker, e timelineEvent) {
	if len(w.events) >= tl.maxPerWorker {
		tl.dropped.Add(1)
		return
	}
	w.events = append(w.events, e)
}

// record adds a stretch of a frame, from begin to end, to w's events.
func (tl *Timeline) record(w *Worker, k *Kind, begin, end time.Time) {
	tl.add(w, timelineEvent{what: eventFrame, kind: k, begin: begin.Sub(tl.start), end: end.Sub(tl.start)})
}

// recordIdle adds an idle stretch of w.
func (tl *Timeline) recordIdle(w *Worker, begin, end time.Time) {
	tl.add(w, timelineEvent{what: eventIdle, begin: begin.Sub(tl.start), end: end.Sub(tl.start)})
}

// recordSteal adds w's steal of a task from worker victim.
func (tl *Timeline) recordSteal(w *Worker, victim int) {
	at := time.Since(tl.start)
	tl.add(w, timelineEvent{what: eventStolen, peer: int32(victim), steal: tl.steals.Add(1), begin: at, end: at})
}

// Note is an event of the node rather than of a worker: a message sent,
// tasks lent or borrowed. A lend and its borrow share Flow, so that the
// trace joins them across nodes by an arrow.
type Note struct {
	At    time.Duration  `json:"at_ns"`
	Name  string         `json:"name"`
	Flow  string         `json:"flow,omitempty"`
	Start bool           `json:"flow_start,omitempty"` // this end of Flow is where it starts
	Args  map[string]any `json:"args,omitempty"`
}

// Note records an event of the node now. Any goroutine.
func (tl *Timeline) Note(n Note) {
	n.At = time.Since(tl.start)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if len(tl.notes) >= tl.maxPerWorker {
		tl.dropped.Add(1)
		return
	}
	tl.notes = append(tl.notes, n)
}

// TimelineData is what a node's timeline recorded, in a form that crosses
// nodes: times are nanoseconds from Start, a wall clock reading.
type TimelineData struct {
	Node         string          `json:"node"`
	Start        int64           `json:"start_unix_ns"`
	Workers      int             `json:"workers"`
	CapPerWorker int             `json:"cap_per_worker"`
	Dropped      int64           `json:"dropped"`
	Spans        []TimelineSpan  `json:"spans"`
	Steals       []TimelineSteal `json:"steals,omitempty"`
	Notes        []Note          `json:"notes,omitempty"`
}

// TimelineSpan is a task frame or an idle stretch of one worker.
type TimelineSpan struct {
	Worker int    `json:"w"`
	Name   string `json:"n"` // the task's name; "" for idle
	Begin  int64  `json:"b"`
	End    int64  `json:"e"`
}

// TimelineSteal is one local steal: worker Thief took a task of Victim.
type TimelineSteal struct {
	Thief  int    `json:"thief"`
	Victim int    `json:"victim"`
	ID     uint64 `json:"id"`
	At     int64  `json:"at"`
}

// TimelineData returns what the pool's timeline recorded in its last run,
// for node. Not during a run.
func (p *Pool) TimelineData(node string) TimelineData {
	tl := p.timeline.Load()
	if tl == nil {
		return TimelineData{Node: node}
	}
	d := TimelineData{Node: node, Start: tl.start.UnixNano(), Workers: len(p.workers), CapPerWorker: tl.maxPerWorker, Dropped: tl.dropped.Load()}
	for _, w := range p.workers {
		for _, e := range w.events {
			switch e.what {
			case eventFrame:
				d.Spans = append(d.Spans, TimelineSpan{Worker: w.ID, Name: e.kind.Name, Begin: int64(e.begin), End: int64(e.end)})
			case eventIdle:
				d.Spans = append(d.Spans, TimelineSpan{Worker: w.ID, Begin: int64(e.begin), End: int64(e.end)})
			case eventStolen:
				d.Steals = append(d.Steals, TimelineSteal{Thief: w.ID, Victim: int(e.peer), ID: e.steal, At: int64(e.begin)})
			}
		}
	}
	tl.mu.Lock()
	d.Notes = append(d.Notes, tl.notes...)
	tl.mu.Unlock()
	return d
}
