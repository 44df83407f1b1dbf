package sched

import (
	"encoding/json"
	"iter"
	"strconv"
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
// events, and the node's message track as many notes as take the same
// memory (maxPerWorker/NoteEvents); what did not fit is counted in
// Dropped, which the trace states. Memory is what bounds it: an event
// costs the process at most TimelineEventBytes, recorded and written
// (report.WriteTrace streams the file), the collector's headroom
// included, so a cap of 1<<20 events keeps a worker's timeline within 64
// MiB.
type Timeline struct {
	start        time.Time
	maxPerWorker int
	// steals numbers the local steals, whose two ends the trace joins by
	// an arrow.
	steals  atomic.Uint64
	dropped atomic.Int64

	mu    sync.Mutex
	notes chunkLog[Note]
}

// TimelineEventBytes bounds the memory a kept event of a worker costs the
// process: twice what it holds live (liveEventBytes), since Go's
// collector lets the heap grow to twice the live data before it collects
// (GOGC=100, the default; a higher GOGC loosens the bound in proportion).
// Writing the trace adds nothing per event. A cap of N events a worker
// bounds the timeline to N times this a worker.
const TimelineEventBytes = 2 * liveEventBytes

// liveEventBytes is what a kept event may hold live: its 24-byte record,
// with room for the unfilled end of the last chunk and the chunks' index.
// The tests hold recording and writing to it.
const liveEventBytes = 32

// NoteEvents is how many events' memory a note of the node (Note) may
// take: it holds strings where an event holds numbers, and a lend's name
// and flow are strings of its own. The message track keeps
// maxPerWorker/NoteEvents notes, within a worker's bound.
const NoteEvents = 8

// NewTimeline starts recording at most maxPerWorker events per worker.
func NewTimeline(maxPerWorker int) *Timeline {
	return &Timeline{start: time.Now(), maxPerWorker: maxPerWorker}
}

// maxNotes is how many notes the node keeps.
func (tl *Timeline) maxNotes() int { return max(1, tl.maxPerWorker/NoteEvents) }

// Timeline is the pool's timeline (Pool.SetTimeline), nil when none
// records.
func (v *View) Timeline() *Timeline { return v.timeline.Load() }

// What a worker's timeline event is.
const (
	eventFrame  uint8 = iota // a task frame ran (ref is its Kind.ID)
	eventIdle                // the worker looked for work or was parked
	eventStolen              // the worker stole a task from worker ref
)

// timelineEvent is one event of one worker, in 24 bytes and no pointer,
// so that a worker's million events are few bytes each and nothing the
// collector scans.
type timelineEvent struct {
	// begin and end are nanoseconds from the timeline's start. A steal
	// happens at begin; its end holds the steal's number instead.
	begin, end int64
	ref        int32 // eventFrame: the task's Kind.ID; eventStolen: the victim
	what       uint8
}

// chunkLen is the length of a chunkLog's chunks: small enough that the
// last, partly filled one costs little, large enough that their index
// does too.
const chunkLen = 1024

// chunkLog is an append-only list kept in fixed chunks: growing never
// copies what is kept (no pause of the worker, and no moment holding two
// copies), and what was read stays as it was while more is added.
type chunkLog[T any] struct {
	chunks [][]T
	n      int
}

// add appends v unless the log holds limit items already, and reports
// whether it did.
func (l *chunkLog[T]) add(v T, limit int) bool {
	if l.n >= limit {
		return false
	}
	i := l.n % chunkLen
	if i == 0 {
		l.chunks = append(l.chunks, make([]T, chunkLen))
	}
	l.chunks[len(l.chunks)-1][i] = v
	l.n++
	return true
}

// all yields the log's items in order.
func (l *chunkLog[T]) all(yield func(*T) bool) bool {
	for i := range l.n {
		if !yield(&l.chunks[i/chunkLen][i%chunkLen]) {
			return false
		}
	}
	return true
}

// add appends e to w's events, or counts it dropped. Holder only.
func (tl *Timeline) add(w *Worker, e timelineEvent) {
	if !w.events.add(e, tl.maxPerWorker) {
		tl.dropped.Add(1)
	}
}

// record adds a stretch of a frame, from begin to end, to w's events.
func (tl *Timeline) record(w *Worker, k *Kind, begin, end time.Time) {
	tl.add(w, timelineEvent{what: eventFrame, ref: int32(k.ID), begin: int64(begin.Sub(tl.start)), end: int64(end.Sub(tl.start))})
}

// recordIdle adds an idle stretch of w.
func (tl *Timeline) recordIdle(w *Worker, begin, end time.Time) {
	tl.add(w, timelineEvent{what: eventIdle, begin: int64(begin.Sub(tl.start)), end: int64(end.Sub(tl.start))})
}

// recordSteal adds w's steal of a task from worker victim.
func (tl *Timeline) recordSteal(w *Worker, victim int) {
	at := int64(time.Since(tl.start))
	tl.add(w, timelineEvent{what: eventStolen, ref: int32(victim), begin: at, end: int64(tl.steals.Add(1))})
}

// Note is an event of the node rather than of a worker: a message sent,
// tasks lent or borrowed. A lend and its borrow share Flow, so that the
// trace joins them across nodes by an arrow. Its fields are plain, not a
// map, so that a note stays within NoteEvents events' memory.
type Note struct {
	At    time.Duration `json:"at_ns"`
	Name  string        `json:"name"`
	Flow  string        `json:"flow,omitempty"`
	Start bool          `json:"flow_start,omitempty"` // this end of Flow is where it starts
	To    string        `json:"to,omitempty"`         // the node a message or a lend went to
	From  string        `json:"from,omitempty"`       // the node a borrowed task came from
	Bytes int           `json:"bytes,omitempty"`      // a message's size
}

// Note records an event of the node now. Any goroutine.
func (tl *Timeline) Note(n Note) {
	n.At = time.Since(tl.start)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if !tl.notes.add(n, tl.maxNotes()) {
		tl.dropped.Add(1)
	}
}

// TimelineData is what a node's timeline recorded. A pool's own
// (View.TimelineData) reads its records where they are, without a copy;
// its JSON form crosses nodes, and decodes into one that holds them.
// Times are nanoseconds from Start, a wall clock reading.
type TimelineData struct {
	Node         string
	Start        int64
	Workers      int
	CapPerWorker int
	Dropped      int64

	// A pool's records: each worker's events (by worker ID), the kinds by
	// ID to name its frames, and the node's notes as they were when read.
	events []chunkLog[timelineEvent]
	kinds  []*Kind
	noted  chunkLog[Note]
	// Decoded from another node's JSON.
	spans  []TimelineSpan
	steals []TimelineSteal
	notes  []Note
}

// timelineJSON is TimelineData's JSON form, which crosses nodes.
type timelineJSON struct {
	Node         string          `json:"node"`
	Start        int64           `json:"start_unix_ns"`
	Workers      int             `json:"workers"`
	CapPerWorker int             `json:"cap_per_worker"`
	Dropped      int64           `json:"dropped"`
	Spans        []TimelineSpan  `json:"spans"`
	Steals       []TimelineSteal `json:"steals,omitempty"`
	Notes        []Note          `json:"notes,omitempty"`
}

// MarshalJSON writes d with its records spelled out; a node's report
// carries it (the cluster caps its events to fit).
func (d TimelineData) MarshalJSON() ([]byte, error) {
	j := timelineJSON{Node: d.Node, Start: d.Start, Workers: d.Workers, CapPerWorker: d.CapPerWorker, Dropped: d.Dropped}
	for s := range d.AllSpans() {
		j.Spans = append(j.Spans, s)
	}
	for s := range d.AllSteals() {
		j.Steals = append(j.Steals, s)
	}
	for n := range d.AllNotes() {
		j.Notes = append(j.Notes, n)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a timeline that MarshalJSON wrote.
func (d *TimelineData) UnmarshalJSON(b []byte) error {
	var j timelineJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*d = TimelineData{Node: j.Node, Start: j.Start, Workers: j.Workers, CapPerWorker: j.CapPerWorker, Dropped: j.Dropped,
		spans: j.Spans, steals: j.Steals, notes: j.Notes}
	return nil
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

// AllSpans yields the task frames and idle stretches, worker by worker,
// each worker's in the order they ended.
func (d TimelineData) AllSpans() iter.Seq[TimelineSpan] {
	return func(yield func(TimelineSpan) bool) {
		for _, s := range d.spans {
			if !yield(s) {
				return
			}
		}
		for w := range d.events {
			d.events[w].all(func(e *timelineEvent) bool {
				switch e.what {
				case eventFrame:
					return yield(TimelineSpan{Worker: w, Name: d.kindName(e.ref), Begin: e.begin, End: e.end})
				case eventIdle:
					return yield(TimelineSpan{Worker: w, Begin: e.begin, End: e.end})
				}
				return true
			})
		}
	}
}

// AllSteals yields the local steals, thief by thief.
func (d TimelineData) AllSteals() iter.Seq[TimelineSteal] {
	return func(yield func(TimelineSteal) bool) {
		for _, s := range d.steals {
			if !yield(s) {
				return
			}
		}
		for w := range d.events {
			d.events[w].all(func(e *timelineEvent) bool {
				if e.what != eventStolen {
					return true
				}
				return yield(TimelineSteal{Thief: w, Victim: int(e.ref), ID: uint64(e.end), At: e.begin})
			})
		}
	}
}

// AllNotes yields the node's notes in the order they were made.
func (d TimelineData) AllNotes() iter.Seq[Note] {
	return func(yield func(Note) bool) {
		for _, n := range d.notes {
			if !yield(n) {
				return
			}
		}
		d.noted.all(func(n *Note) bool { return yield(*n) })
	}
}

// kindName is the name of the task kind with id, as registered.
func (d TimelineData) kindName(id int32) string {
	if id >= 0 && int(id) < len(d.kinds) {
		return d.kinds[id].Name
	}
	// Not registered when the timeline was read: no run has it.
	return "task kind " + strconv.Itoa(int(id))
}

// TimelineData returns what the pool's timeline recorded in its last run,
// for node: its records themselves, read until the pool's next run. Not
// during a run.
func (v *View) TimelineData(node string) TimelineData {
	tl := v.timeline.Load()
	if tl == nil {
		return TimelineData{Node: node}
	}
	workers := v.pool.workers
	d := TimelineData{Node: node, Start: tl.start.UnixNano(), Workers: len(workers), CapPerWorker: tl.maxPerWorker, Dropped: tl.dropped.Load()}
	d.events = make([]chunkLog[timelineEvent], len(workers))
	for i, w := range workers {
		d.events[i] = w.events
	}
	registry.RLock()
	d.kinds = registry.kinds[:len(registry.kinds):len(registry.kinds)]
	registry.RUnlock()
	tl.mu.Lock()
	d.noted = tl.notes
	tl.mu.Unlock()
	return d
}
