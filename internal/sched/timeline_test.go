package sched

import (
	"runtime"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/tsys-go/tsys/inline"
)

// timelineKind is a registered kind for the timeline's tests, whose
// frames the data names by its registered ID.
var timelineKind = func() *Kind {
	k := &Kind{Name: "sched.timelinetest", Run: func(*Header, *Ctx) {}}
	if err := RegisterKind(k); err != nil {
		panic(err)
	}
	return k
}()

// timelinePool is a pool of workers that record into a timeline of
// capacity limit, driven by hand, without a run.
func timelinePool(workers, limit int) (*Pool, *Timeline) {
	p := NewPool(workers, inline.Default())
	tl := NewTimeline(limit)
	p.SetTimeline(tl)
	return p, tl
}

// TestTimelineKeepsItsCap: a worker keeps its first cap events, frames,
// idle stretches and steals in the order it made them, and counts the
// rest dropped; the node keeps 1/NoteEvents as many notes. What was read
// stays as it was when the next run records anew.
func TestTimelineKeepsItsCap(t *testing.T) {
	const limit, made = 2*chunkLen + 77, 5 * chunkLen // past the cap, not at a chunk's end
	p, tl := timelinePool(2, limit)
	w := p.workers[1]
	at := func(i int) time.Time { return tl.start.Add(time.Duration(i) * time.Microsecond) }
	for i := range made {
		switch i % 3 {
		case 0:
			tl.record(w, timelineKind, at(i), at(i+1))
		case 1:
			tl.recordIdle(w, at(i), at(i+1))
		case 2:
			tl.recordSteal(w, 0)
		}
	}
	const notes = limit/NoteEvents + 10
	for i := range notes {
		tl.Note(Note{Name: "lent x", Flow: "n/" + strconv.Itoa(i), To: "n2"})
	}
	d := p.View().TimelineData("n1")
	if want := int64(made - limit + 10); d.Dropped != want {
		t.Errorf("dropped %d, want %d", d.Dropped, want)
	}
	spans, steals := 0, 0
	for s := range d.AllSpans() {
		i := spans / 2 * 3 // the event this span was
		if spans%2 == 1 {
			i++
		}
		name := timelineKind.Name
		if i%3 == 1 {
			name = ""
		}
		want := TimelineSpan{Worker: 1, Name: name, Begin: int64(time.Duration(i) * time.Microsecond), End: int64(time.Duration(i+1) * time.Microsecond)}
		if s != want {
			t.Fatalf("span %d is %+v, want %+v", spans, s, want)
		}
		spans++
	}
	for s := range d.AllSteals() {
		steals++
		if s.Thief != 1 || s.Victim != 0 || s.ID != uint64(steals) {
			t.Fatalf("steal %d is %+v", steals, s)
		}
	}
	if spans+steals != limit || steals != limit/3 {
		t.Errorf("%d spans and %d steals kept, want %d events of which %d steals", spans, steals, limit, limit/3)
	}
	kept := 0
	for n := range d.AllNotes() {
		if n.Flow != "n/"+strconv.Itoa(kept) {
			t.Fatalf("note %d is %+v", kept, n)
		}
		kept++
	}
	if kept != limit/NoteEvents {
		t.Errorf("%d notes kept, want %d", kept, limit/NoteEvents)
	}

	// The next run starts afresh; what was read is left as it was.
	w.resetStats()
	tl.record(w, timelineKind, at(0), at(1))
	if got := count(p.View().TimelineData("n1").AllSpans()); got != 1 {
		t.Errorf("the next run reads %d spans, want 1", got)
	}
	if got := count(d.AllSpans()); got != spans {
		t.Errorf("the last run's data changed: %d spans, were %d", got, spans)
	}
}

func count[T any](seq func(func(T) bool)) int {
	n := 0
	for range seq {
		n++
	}
	return n
}

// TestTimelineMemory: a kept event holds no more than liveEventBytes of
// live memory, half of the TimelineEventBytes the cap is chosen by (the
// other half is the collector's headroom), and a note no more than
// NoteEvents events. Reading the data copies nothing.
func TestTimelineMemory(t *testing.T) {
	if size := unsafe.Sizeof(timelineEvent{}); size > 24 {
		t.Errorf("an event takes %d bytes, want 24", size)
	}
	const events = 100 * chunkLen
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := live()
	p, tl := timelinePool(1, events)
	w := p.workers[0]
	now := time.Now()
	for range events {
		tl.record(w, timelineKind, now, now)
	}
	recorded := live()
	for i := range events / NoteEvents {
		// As the cluster notes a lend: a name and a flow of their own.
		tl.Note(Note{Name: "lent " + timelineKind.Name, Flow: "127.0.0.1:40000/" + strconv.Itoa(1e6+i), Start: true, To: "127.0.0.1:40001"})
	}
	noted := live()
	d := p.View().TimelineData("n")
	read := live()
	perEvent := float64(recorded-before) / events
	perNote := float64(noted-recorded) / (events / NoteEvents)
	t.Logf("%.1f bytes live an event, %.1f a note", perEvent, perNote)
	if perEvent > liveEventBytes || perNote > NoteEvents*liveEventBytes {
		t.Errorf("%.1f bytes live an event and %.1f a note, want at most %d and %d", perEvent, perNote, liveEventBytes, NoteEvents*liveEventBytes)
	}
	if grew := int64(read) - int64(noted); grew > 64<<10 {
		t.Errorf("reading the data took %d bytes: it copied the records", grew)
	}
	if count(d.AllSpans()) != events || count(d.AllNotes()) != events/NoteEvents {
		t.Error("the data does not hold what was recorded")
	}
	runtime.KeepAlive(p)
}
