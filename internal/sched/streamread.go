package sched

import (
	"cmp"
	"slices"
	"time"
)

// StreamData is what a pool's stream kept of the last Window, drawn to a
// resolution: per worker, rectangles of task frames and idle stretches,
// each at least about Res wide where the events allow. Times are Unix
// nanoseconds, so that the streams of several nodes line up.
type StreamData struct {
	Node    string       `json:"node"`
	On      bool         `json:"on"` // the stream was on when read; off, Rects is empty
	AtNs    int64        `json:"at_ns"`
	Window  int64        `json:"window_ns"`
	Res     int64        `json:"res_ns"`
	Workers int          `json:"workers"`
	Rects   []StreamRect `json:"rects"`
}

// StreamRect is a stretch of one worker: a task frame, a run of frames of
// one task, a batch of short frames of several tasks too narrow to draw
// apart (Mixed: Name is the task that took most of it), or an idle
// stretch (Name ""): Wait when the node had asked another node for work
// all through it and had no answer yet (waiting on the network), rather
// than having nothing to run and nothing asked for.
type StreamRect struct {
	Worker int    `json:"w"`
	Name   string `json:"n"`
	Begin  int64  `json:"b"`
	End    int64  `json:"e"`
	Frames int64  `json:"k,omitempty"` // task frames in it; 0 for idle
	Mixed  bool   `json:"mixed,omitempty"`
	Wait   bool   `json:"wait,omitempty"`
}

// maxStreamRects bounds the rectangles of one worker in an answer, on top
// of what the resolution already merges: the newest are kept.
const maxStreamRects = 2048

// StreamData returns what the pool's stream kept of the window before
// now, for node, merged to res (at least 1µs): neighbouring stretches of
// one task, or idle ones, less than res apart become one; stretches
// narrower than res that follow each other become one Mixed batch. Any
// goroutine, at any time.
func (v *View) StreamData(node string, now time.Time, window, res time.Duration) StreamData {
	res = max(res, time.Microsecond)
	d := StreamData{Node: node, AtNs: now.UnixNano(), Window: int64(window), Res: int64(res), Workers: len(v.pool.workers)}
	s := v.stream.Load()
	if s == nil {
		return d
	}
	d.On = true
	registry.RLock()
	kinds := registry.kinds[:len(registry.kinds):len(registry.kinds)]
	registry.RUnlock()
	from := int64(now.Sub(s.start) - window)
	base := s.start.UnixNano()
	waits := joinNear(s.waits.spans(int64(now.Sub(s.start))), int64(res))
	for i := range waits {
		waits[i].begin += base
		waits[i].end += base
	}
	var buf []streamEvent
	for w := range s.rings {
		buf = s.rings[w].read(buf[:0])
		buf = v.idleNow(buf, w, s, now)
		var rects []StreamRect
		for _, e := range buf {
			if e.end < from || e.what != eventFrame && e.what != eventIdle {
				continue
			}
			r := StreamRect{Worker: w, Begin: base + max(e.begin, from), End: base + e.end}
			if e.what == eventFrame {
				r.Name, r.Frames = kindName(kinds, e.ref), e.frames
			}
			rects = append(rects, r)
		}
		rects = coarsen(rects, int64(res))
		rects = splitWaiting(rects, waits, int64(res))
		if len(rects) > maxStreamRects {
			rects = rects[len(rects)-maxStreamRects:]
		}
		d.Rects = append(d.Rects, rects...)
	}
	return d
}

// idleNow appends to buf the idle stretch worker w is in at now, if any,
// which its ring gets only when it ends: a worker that waits for an
// answer from another node shows so while it waits.
func (v *View) idleNow(buf []streamEvent, w int, s *Stream, now time.Time) []streamEvent {
	workers := v.pool.workers
	if w >= len(workers) {
		return buf
	}
	since := workers[w].idle.since.Load()
	if since == 0 || since >= now.UnixNano() {
		return buf
	}
	b := max(since-s.start.UnixNano(), 0)
	return append(buf, streamEvent{what: eventIdle, begin: b, end: int64(now.Sub(s.start))})
}

// splitWaiting cuts each idle rectangle of rs by waits (splitIdle).
func splitWaiting(rs []StreamRect, waits []waitSpan, res int64) []StreamRect {
	if len(waits) == 0 {
		return rs
	}
	out := make([]StreamRect, 0, len(rs)+len(rs)/2)
	for _, r := range rs {
		if r.Name != "" || r.Mixed {
			out = append(out, r)
			continue
		}
		out = splitIdle(out, r, waits, res)
	}
	return out
}

// kindName names the kind with id among kinds.
func kindName(kinds []*Kind, id int32) string {
	return TimelineData{kinds: kinds}.kindName(id)
}

// coarsen merges one worker's rectangles to resolution res: sorted by
// start (an enclosing frame before the frames it ran inside it, so drawn
// under them), same-named neighbours less than res apart joined, then
// runs of rectangles narrower than res joined into Mixed batches.
func coarsen(rs []StreamRect, res int64) []StreamRect {
	slices.SortStableFunc(rs, func(a, b StreamRect) int { return cmp.Compare(a.Begin, b.Begin) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].Name == r.Name && r.Begin-out[n-1].End < res {
			out[n-1] = joined(out[n-1], r)
			continue
		}
		out = append(out, r)
	}
	return batchNarrow(out, res)
}

// batchNarrow joins each run of rectangles narrower than res into one,
// named by the task that took most of the run's time.
func batchNarrow(rs []StreamRect, res int64) []StreamRect {
	out := rs[:0]
	for i := 0; i < len(rs); {
		if rs[i].End-rs[i].Begin >= res {
			out = append(out, rs[i])
			i++
			continue
		}
		j := i + 1
		for j < len(rs) && rs[j].End-rs[j].Begin < res && rs[j].Begin-rs[j-1].End < res {
			j++
		}
		out = append(out, batch(rs[i:j]))
		i = j
	}
	return out
}

// batch is one rectangle for the narrow rectangles rs.
func batch(rs []StreamRect) StreamRect {
	if len(rs) == 1 {
		return rs[0]
	}
	took := map[string]int64{}
	b := rs[0]
	for _, r := range rs[1:] {
		b = joined(b, r)
	}
	for _, r := range rs {
		took[r.Name] += r.End - r.Begin
		b.Mixed = b.Mixed || r.Name != rs[0].Name
	}
	best := int64(-1)
	for _, r := range rs { // in order, so that a tie names the first
		if took[r.Name] > best {
			b.Name, best = r.Name, took[r.Name]
		}
	}
	return b
}

// joined is the rectangle over a and b, with both's frames.
func joined(a, b StreamRect) StreamRect {
	a.Begin, a.End = min(a.Begin, b.Begin), max(a.End, b.End)
	a.Frames += b.Frames
	return a
}
