package sched

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// streamWaits keeps, next to a Stream, the stretches during which the
// node had asked another node for work and not had its answer: what tells
// a worker's idle stretch that waits on the network (a round trip in
// flight) from one with nothing to run and nothing asked for. It is
// written once per request, never per task, so a mutex is cheap enough.
type streamWaits struct {
	mu sync.Mutex
	// open are the requests out, by the peer asked: when each was sent,
	// in nanoseconds from the stream's start.
	open map[string]int64
	// ring keeps the last streamWaitSlots stretches over, those that
	// touch joined; head counts the slots filled so far.
	ring [streamWaitSlots]waitSpan
	head int
}

// waitSpan is a stretch of waiting, from begin to end.
type waitSpan struct{ begin, end int64 }

// streamWaitSlots bounds the stretches a node keeps: 16 bytes each, and
// stretches that overlap or follow each other within streamMergeGap share
// a slot, so a node whose requests are always out needs one.
const streamWaitSlots = 1024

// maxStreamWait is the longest a request counts as waited on: far above
// a policy's reply timeout (fishing's is 1 s), after which it asks again,
// so that an answer lost with its peer does not draw its node waiting for
// good.
const maxStreamWait = 10 * time.Second

// began notes that a request to peer went out at b. A request still out
// to the same peer keeps its start: the node has waited since then.
func (ws *streamWaits) began(peer string, b int64) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.open == nil {
		ws.open = map[string]int64{}
	}
	if old, ok := ws.open[peer]; ok {
		if b-old < int64(maxStreamWait) {
			return
		}
		ws.putLocked(old, old+int64(maxStreamWait))
	}
	ws.open[peer] = b
}

// ended notes that the request out to peer was answered, or given up, at
// e. A request the stream did not see go out (it was off then) is no
// stretch.
func (ws *streamWaits) ended(peer string, e int64) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	b, ok := ws.open[peer]
	if !ok {
		return
	}
	delete(ws.open, peer)
	ws.putLocked(b, min(e, b+int64(maxStreamWait)))
}

// putLocked adds the stretch b..e to the ring, joined to the last one
// when they overlap or nearly touch.
func (ws *streamWaits) putLocked(b, e int64) {
	if e <= b {
		return
	}
	if ws.head > 0 {
		last := &ws.ring[(ws.head-1)%streamWaitSlots]
		if b <= last.end+int64(streamMergeGap) && e >= last.begin-int64(streamMergeGap) {
			last.begin, last.end = min(last.begin, b), max(last.end, e)
			return
		}
	}
	ws.ring[ws.head%streamWaitSlots] = waitSpan{b, e}
	ws.head++
}

// spans are the stretches of waiting up to now (the requests still out
// included, as waiting until now), sorted and joined where they overlap.
func (ws *streamWaits) spans(now int64) []waitSpan {
	ws.mu.Lock()
	out := make([]waitSpan, 0, min(ws.head, streamWaitSlots)+len(ws.open))
	for i := max(0, ws.head-streamWaitSlots); i < ws.head; i++ {
		out = append(out, ws.ring[i%streamWaitSlots])
	}
	for _, b := range ws.open {
		if e := min(now, b+int64(maxStreamWait)); e > b {
			out = append(out, waitSpan{b, e})
		}
	}
	ws.mu.Unlock()
	return unionSpans(out)
}

// unionSpans sorts spans by start and joins those that overlap or touch.
func unionSpans(spans []waitSpan) []waitSpan {
	slices.SortFunc(spans, func(a, b waitSpan) int { return cmp.Compare(a.begin, b.begin) })
	out := spans[:0]
	for _, s := range spans {
		if n := len(out); n > 0 && s.begin <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// joinNear joins the sorted, disjoint spans less than gap apart: a node
// asked again soon after each answer waits all through, at a resolution
// of gap, though each of its waits is narrower than that.
func joinNear(spans []waitSpan, gap int64) []waitSpan {
	out := spans[:0]
	for _, s := range spans {
		if n := len(out); n > 0 && s.begin-out[n-1].end < gap {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// splitIdle appends to dst the idle rectangle r cut by waits (sorted,
// disjoint, in r's time base) into pieces: those inside a wait are
// waiting (Wait), the rest stay idle. Waiting narrower than res is not
// drawn apart, and idle narrower than res between or beside waits goes
// to the waiting, so that no piece is narrower than the page draws
// unless r was.
func splitIdle(dst []StreamRect, r StreamRect, waits []waitSpan, res int64) []StreamRect {
	i, _ := slices.BinarySearchFunc(waits, r.Begin, func(w waitSpan, t int64) int { return cmp.Compare(w.end, t+1) })
	first := len(dst)
	out := dst
	cur := r.Begin
	for ; i < len(waits) && waits[i].begin < r.End; i++ {
		b, e := max(waits[i].begin, r.Begin), min(waits[i].end, r.End)
		if e-b < res {
			continue
		}
		n := len(out)
		switch {
		case n > first && b-out[n-1].End < res && out[n-1].Wait:
			out[n-1].End = e // the idle gap between two waits is too narrow
			cur = e
			continue
		case b-cur < res:
			b = cur // the idle before it is too narrow
		default:
			out = append(out, piece(r, cur, b, false))
		}
		out = append(out, piece(r, b, e, true))
		cur = e
	}
	if len(out) == first {
		return append(out, r)
	}
	if r.End > cur {
		if n := len(out); r.End-cur < res && out[n-1].Wait {
			out[n-1].End = r.End
		} else {
			out = append(out, piece(r, cur, r.End, false))
		}
	}
	return out
}

// piece is the part b..e of the idle rectangle r, waiting or not.
func piece(r StreamRect, b, e int64, wait bool) StreamRect {
	r.Begin, r.End, r.Wait = b, e, wait
	return r
}

// StreamWaitBegan notes, while the pool's stream is on, that the node
// asked peer for work at t: until the answer (StreamWaitEnded), its idle
// workers wait on the network rather than idle. One call per request,
// not per task; any goroutine.
func (pt *Port) StreamWaitBegan(peer string, t time.Time) {
	if s := pt.pool.view.stream.Load(); s != nil {
		s.waits.began(peer, int64(t.Sub(s.start)))
	}
}

// StreamWaitEnded notes that the request to peer was answered, or given
// up, at t. Any goroutine.
func (pt *Port) StreamWaitEnded(peer string, t time.Time) {
	if s := pt.pool.view.stream.Load(); s != nil {
		s.waits.ended(peer, int64(t.Sub(s.start)))
	}
}
