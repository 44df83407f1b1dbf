package sched

import (
	"sync"
	"sync/atomic"
	"time"
)

// Stream keeps, while someone watches (the dashboard's task stream, the
// /api/stream endpoint), each worker's last task frames and idle
// stretches, for a live view of what the workers run. Unlike Timeline,
// which keeps a run's first events for the trace written after it, a
// Stream is switched on and off during a run and keeps the newest events:
// a fixed ring per worker, read by any goroutine while the worker writes.
//
// Nothing of it costs a task frame while it is off: an executor looks at
// the switch (frameTrack.retrack) once per task its loop takes and with each
// inlining grant (spawn.go, about every maxStaleness of work), never per
// spawn or per frame. Switched on inside a frame, the executor tracks the
// frames that begin from then on; the frames already running, which it
// did not see begin, it leaves out. While it is on, a frame costs what a
// timeline's does: two clock reads, and a few atomic stores into the ring. Runs of
// frames of one task that follow each other within streamMergeGap share
// one slot, so that a ring of fine-grained tasks still covers seconds.
type Stream struct {
	start time.Time
	rings []streamRing
	waits streamWaits // the node's requests for work out (streamwait.go)
}

// streamSlots is how many events a worker's ring keeps: 32 bytes each,
// so 128 KiB a worker, allocated only while watched.
const streamSlots = 4096

// streamMergeGap is how far apart two frames of one task may be to share
// a slot: far below what a page can draw in a window of seconds, far above
// a fine-grained task's gap between frames.
const streamMergeGap = 50 * time.Microsecond

// streamRing is one worker's ring. Only the worker's holder writes it;
// every field is atomic so that a reader needs no lock, and head, stored
// after a slot is written, tells the reader which slots it can trust.
type streamRing struct {
	head  atomic.Int64 // events added so far
	slots [streamSlots]streamSlot
}

// streamSlot is one event, or a run of merged frames of one task.
type streamSlot struct {
	tag        atomic.Int64 // what<<32 | uint32(ref)
	begin, end atomic.Int64 // nanoseconds from the stream's start
	frames     atomic.Int64 // frames merged into the slot
}

func newStream(workers int) *Stream {
	return &Stream{start: time.Now(), rings: make([]streamRing, workers)}
}

func streamTag(what uint8, ref int32) int64 { return int64(what)<<32 | int64(uint32(ref)) }

// add puts an event of what (eventFrame with its Kind.ID, or eventIdle)
// into w's ring. Holder only.
func (s *Stream) add(w *Worker, what uint8, ref int32, begin, end time.Time) {
	s.put(w, streamTag(what, ref), int64(begin.Sub(s.start)), int64(end.Sub(s.start)), int64(streamMergeGap), 1)
}

// streamSampleGap is how far apart two samples of a running frame may be
// to draw one stretch: many grants apart (spawn.go), yet finer than the
// page draws.
const streamSampleGap = time.Millisecond

// sample notes that w runs a frame of k at now: taken with each inlining
// grant, it shows the frames that run long, those begun before the stream
// was switched on included, before they end. Holder only.
func (s *Stream) sample(w *Worker, k *Kind, now time.Time) {
	at := int64(now.Sub(s.start))
	s.put(w, streamTag(eventFrame, int32(k.ID)), at, at, int64(streamSampleGap), 0)
}

// put adds an event, tagged, from b to e, to w's ring: into the last
// slot when it has the same tag and ended at most gap before b, adding
// frames to its count. Holder only.
func (s *Stream) put(w *Worker, tag, b, e, gap, frames int64) {
	if w.ID >= len(s.rings) {
		return
	}
	r := &s.rings[w.ID]
	h := r.head.Load()
	if h > 0 {
		last := &r.slots[(h-1)%streamSlots]
		if last.tag.Load() == tag && b <= last.end.Load()+gap {
			// A frame of the last slot's task, right after it (or, for a
			// frame that enclosed inner frames of its own task, around
			// them), or a sample of it still running: widen the slot.
			if e > last.end.Load() {
				last.end.Store(e)
			}
			if b < last.begin.Load() {
				last.begin.Store(b)
			}
			last.frames.Add(frames)
			return
		}
	}
	sl := &r.slots[h%streamSlots]
	sl.tag.Store(tag)
	sl.begin.Store(b)
	sl.end.Store(e)
	sl.frames.Store(frames)
	r.head.Store(h + 1)
}

// streamEvent is a slot as a reader copied it.
type streamEvent struct {
	what       uint8
	ref        int32
	begin, end int64
	frames     int64
}

// read appends the ring's events in the order they were added, leaving
// out any slot the writer may have reused while it was read.
func (r *streamRing) read(out []streamEvent) []streamEvent {
	h1 := r.head.Load()
	lo := max(0, h1-streamSlots)
	first := len(out)
	for i := lo; i < h1; i++ {
		sl := &r.slots[i%streamSlots]
		tag := sl.tag.Load()
		out = append(out, streamEvent{what: uint8(tag >> 32), ref: int32(uint32(tag)), begin: sl.begin.Load(), end: sl.end.Load(), frames: sl.frames.Load()})
	}
	// The writer fills slot h2 (mod streamSlots) before it stores
	// head = h2+1: slots below h2-streamSlots+1 may hold newer events, or
	// a mix of two, by now.
	if h2 := r.head.Load(); h2-streamSlots+1 > lo {
		skip := min(int(h2-streamSlots+1-lo), len(out)-first)
		out = append(out[:first], out[first+skip:]...)
	}
	return out
}

// streamSwitch turns the pool's stream on when watched and off once
// nobody has watched for a while.
type streamSwitch struct {
	mu    sync.Mutex
	until time.Time
	timer *time.Timer
}

// WatchStream switches the pool's stream on, if it is off, and keeps it
// on until linger after the last call: a page that stops asking stops
// costing the job. Any goroutine, during a run or between runs.
func (v *View) WatchStream(linger time.Duration) {
	v.streamSw.mu.Lock()
	defer v.streamSw.mu.Unlock()
	if v.stream.Load() == nil {
		v.stream.Store(newStream(len(v.pool.workers)))
	}
	v.streamSw.until = time.Now().Add(linger)
	if v.streamSw.timer == nil {
		v.streamSw.timer = time.AfterFunc(linger, v.lingerStream)
	}
}

// lingerStream stops the stream if nobody watched it in its linger, or
// looks again when that ends.
func (v *View) lingerStream() {
	v.streamSw.mu.Lock()
	defer v.streamSw.mu.Unlock()
	if v.streamSw.timer == nil {
		return
	}
	if left := time.Until(v.streamSw.until); left > 0 {
		v.streamSw.timer.Reset(left)
		return
	}
	v.streamSw.timer = nil
	v.stream.Store(nil)
}

// StopStream switches the pool's stream off now, dropping what it kept.
func (v *View) StopStream() {
	v.streamSw.mu.Lock()
	defer v.streamSw.mu.Unlock()
	if v.streamSw.timer != nil {
		v.streamSw.timer.Stop()
		v.streamSw.timer = nil
	}
	v.stream.Store(nil)
}

// Streaming reports whether the pool's stream is on.
func (v *View) Streaming() bool { return v.stream.Load() != nil }
