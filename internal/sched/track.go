package sched

import "time"

// frameTrack follows the task frames an executor runs, for whoever
// records them: a timeline (each frame's stretches on each worker), the
// live stream (its newest ones), and the measuring of work and span (each
// frame's clock on the critical path, workspan.go). While none of them
// records, on is false and nothing here runs: the executor tests on once
// per task frame (Executor.run).
//
// It belongs to its executor, and only the executor's goroutine uses it.
type frameTrack struct {
	x *Executor
	// on: frames are tracked. traced: on for the whole run (a timeline,
	// or work and span measured); otherwise on follows the pool's stream
	// (retrack).
	on, traced bool
	// open are the frames the executor's goroutine is running,
	// outermost first, while on.
	open []openFrame
}

// openFrame is a task frame an executor is running, while its frames are
// tracked: since is when its current stretch on a worker began; clock and
// strand are its place on the critical path (workspan.go).
type openFrame struct {
	h      *Header
	kind   *Kind
	since  time.Time
	clock  time.Duration
	strand time.Time
	id     int32 // the task's id in the tree being recorded (tree.go); -1 if none
}

// start sets the tracking for a run: on all through it if traced.
func (t *frameTrack) start(traced bool) { t.traced, t.on = traced, traced }

// retrack tracks frames while the stream of p, the executor's pool, is
// on (always, while traced). Switched off, it forgets the frames it was
// tracking: only the stream read them. It is given p, rather than reach
// it through x, because it runs on every grant of credit: one load less.
func (t *frameTrack) retrack(p *Pool) {
	on := t.traced || p.view.stream.Load() != nil
	if on != t.on {
		t.on = on
		if !on {
			t.open = t.open[:0]
		}
	}
}

// begin starts tracking frame h: the frame it runs inside stops computing
// while h runs (it waits for h, or for a task h is part of).
func (t *frameTrack) begin(h *Header) {
	x := t.x
	now := time.Now()
	if x.measure {
		t.pauseStrand(now)
	}
	f := openFrame{h: h, kind: h.kind, since: now, clock: h.SpanClock(), strand: now, id: -1}
	if r := x.pool.recorder; x.measure && r != nil {
		f.id = r.id(h)
	}
	t.open = append(t.open, f)
}

// end ends the tracking of frame h: its last stretch goes to the
// timeline, its last strand to the work, and the frame around it
// computes again.
func (t *frameTrack) end(h *Header) {
	n := len(t.open)
	if n == 0 || t.open[n-1].h != h {
		// Begun before the stream switched tracking on (retrack): not
		// tracked. Never so while traced.
		return
	}
	f := t.open[n-1]
	t.open = t.open[:n-1]
	x := t.x
	now := time.Now()
	if tl := x.pool.view.timeline.Load(); tl != nil {
		tl.record(x.w, f.kind, f.since, now)
	}
	if s := x.pool.view.stream.Load(); s != nil {
		s.add(x.w, eventFrame, int32(f.kind.ID), f.since, now)
	}
	if x.measure {
		t.endStrand(h, f, now)
		t.resumeStrand(now)
	}
}

// suspend ends the stretch every open frame ran on w, and the running
// frame's strand: the executor is about to give w away and wait, and the
// frames will go on, later, on whichever worker it gets back. So a
// worker's timeline shows what really ran on it, and waiting is not work.
func (t *frameTrack) suspend(w *Worker) {
	if !t.on {
		return
	}
	x := t.x
	now := time.Now()
	if tl := x.pool.view.timeline.Load(); tl != nil {
		for _, f := range t.open {
			tl.record(w, f.kind, f.since, now)
		}
	}
	if s := x.pool.view.stream.Load(); s != nil {
		for _, f := range t.open {
			s.add(w, eventFrame, int32(f.kind.ID), f.since, now)
		}
	}
	if x.measure {
		t.pauseStrand(now)
	}
}

// resume starts a new stretch of every open frame, and the running
// frame's next strand.
func (t *frameTrack) resume() {
	if !t.on {
		return
	}
	now := time.Now()
	for i := range t.open {
		t.open[i].since = now
	}
	if t.x.measure {
		t.resumeStrand(now)
	}
}
