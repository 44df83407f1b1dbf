package sched

import "time"

// Work and span, as Cilkscale measures them: the work T_1 is the time all
// task frames spent computing, summed; the span T_inf is the longest chain
// of computation through the task graph, each task's own time plus the
// longest chain through the tasks it waited for. Their ratio is the
// parallelism: more workers than that cannot help.
//
// Every frame carries a clock on the critical path. A spawned task's clock
// starts at its spawner's clock at the spawn (Header.span, set by Push); a
// frame's clock advances by the time it computes, in strands between waits;
// a wait (Await, Join) sets it to the later of its own clock and the clock
// the awaited task finished at; at its end the frame leaves its clock in
// Header.span for whoever waits for it. The root's final clock is the span.
// Inlined spawns run inside their caller's strand, as a serial program
// would run them. Time a frame spends waiting, or running other frames
// inside a wait, is not its own.
//
// Measuring reads the clock at each start and end of a task frame (the
// same reads a timeline takes, shared when both are on: frameTrack, in
// track.go) and once more around a wait that blocks; it is off unless
// Pool.SetWorkSpan turns it on (tsys run --workspan).

// SpanClock is the task's clock on the critical path: when it became
// ready, or, once done, when it finished. The cluster sends it with a lent
// task and its result.
func (h *Header) SpanClock() time.Duration { return seconds(h.span) }

// SetSpanClock sets the clock of a task that came from another node (its
// ready clock, before it is queued) or of a lent task whose result came
// back (its finish clock, before Complete).
func (h *Header) SetSpanClock(d time.Duration) { h.span = float32(d.Seconds()) }

func seconds(s float32) time.Duration { return time.Duration(float64(s) * 1e9) }

// strandClock is the clock of the frame the executor runs, now.
func (t *frameTrack) strandClock() time.Duration {
	if len(t.open) == 0 {
		return 0
	}
	f := &t.open[len(t.open)-1]
	return f.clock + time.Since(f.strand)
}

// pauseStrand ends the running frame's strand at now, before it stops
// computing (it runs a frame inside a wait, or blocks): its time so far
// is work, and its clock moves on by it.
func (t *frameTrack) pauseStrand(now time.Time) {
	if len(t.open) == 0 {
		return
	}
	f := &t.open[len(t.open)-1]
	d := now.Sub(f.strand)
	f.clock += d
	f.strand = now
	x := t.x
	x.w.stats.WorkNanos += int64(d)
	if r := x.pool.recorder; r != nil {
		r.worked(f.id, d)
	}
}

// resumeStrand starts the running frame's next strand at now.
func (t *frameTrack) resumeStrand(now time.Time) {
	if len(t.open) > 0 {
		t.open[len(t.open)-1].strand = now
	}
}

// waited joins the running frame's clock with that of h, which it waited
// for: it cannot go on before h finished.
func (t *frameTrack) waited(h *Header) {
	if len(t.open) > 0 {
		f := &t.open[len(t.open)-1]
		f.clock = max(f.clock, h.SpanClock())
	}
}

// endStrand ends frame f of task h at now: its last strand is work, and
// h's clock is where it finished.
func (t *frameTrack) endStrand(h *Header, f openFrame, now time.Time) {
	d := now.Sub(f.strand)
	x := t.x
	x.w.stats.WorkNanos += int64(d)
	h.SetSpanClock(f.clock + d)
	if r := x.pool.recorder; r != nil {
		r.worked(f.id, d)
	}
}
