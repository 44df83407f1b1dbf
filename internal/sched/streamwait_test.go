package sched

import (
	"slices"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
)

// TestSplitIdle: an idle rectangle cut by the waits: the parts inside a
// wait come out waiting, the rest idle, over every overlap a wait can
// have; pieces narrower than the resolution go to a neighbouring wait.
func TestSplitIdle(t *testing.T) {
	idle := StreamRect{Worker: 2, Begin: 100, End: 200}
	i := func(b, e int64) StreamRect { return StreamRect{Worker: 2, Begin: b, End: e} }
	w := func(b, e int64) StreamRect { return StreamRect{Worker: 2, Begin: b, End: e, Wait: true} }
	for _, c := range []struct {
		name  string
		waits []waitSpan
		res   int64
		want  []StreamRect
	}{
		{"no wait", nil, 1, []StreamRect{idle}},
		{"waits elsewhere", []waitSpan{{0, 100}, {200, 300}}, 1, []StreamRect{idle}},
		{"one covering it all", []waitSpan{{50, 250}}, 1, []StreamRect{w(100, 200)}},
		{"exactly it", []waitSpan{{100, 200}}, 1, []StreamRect{w(100, 200)}},
		{"over its start", []waitSpan{{50, 130}}, 1, []StreamRect{w(100, 130), i(130, 200)}},
		{"over its end", []waitSpan{{170, 250}}, 1, []StreamRect{i(100, 170), w(170, 200)}},
		{"inside", []waitSpan{{120, 150}}, 1, []StreamRect{i(100, 120), w(120, 150), i(150, 200)}},
		{"several", []waitSpan{{10, 20}, {90, 110}, {130, 140}, {160, 170}, {190, 260}, {300, 400}}, 1,
			[]StreamRect{w(100, 110), i(110, 130), w(130, 140), i(140, 160), w(160, 170), i(170, 190), w(190, 200)}},
		{"a wait too narrow to draw", []waitSpan{{120, 125}}, 10, []StreamRect{idle}},
		{"narrow idle between waits joins them", []waitSpan{{110, 140}, {145, 180}}, 10,
			[]StreamRect{i(100, 110), w(110, 180), i(180, 200)}},
		{"narrow idle at the edges goes to the wait", []waitSpan{{105, 195}}, 10, []StreamRect{w(100, 200)}},
	} {
		got := splitIdle(nil, idle, c.waits, c.res)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestJoinNear: waits closer than the resolution join, so that a node
// asking again and again in short requests shows waiting at a
// resolution none of them reaches alone; waits farther apart stay apart.
func TestJoinNear(t *testing.T) {
	got := joinNear([]waitSpan{{110, 114}, {116, 120}, {122, 150}, {160, 170}, {175, 176}}, 10)
	want := []waitSpan{{110, 150}, {160, 176}}
	if !slices.Equal(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	// Drawn, the short waits before 150 make one waiting piece.
	got2 := splitIdle(nil, StreamRect{Begin: 100, End: 200}, want, 10)
	want2 := []StreamRect{{Begin: 100, End: 110}, {Begin: 110, End: 150, Wait: true}, {Begin: 150, End: 160}, {Begin: 160, End: 176, Wait: true}, {Begin: 176, End: 200}}
	if !slices.Equal(got2, want2) {
		t.Errorf("split %+v, want %+v", got2, want2)
	}
}

// TestStreamWaitsBounded: however many requests go out, a node keeps at
// most streamWaitSlots stretches, the newest; stretches that overlap
// share one; a request still out shows as waiting until now, but not
// longer than maxStreamWait; an answer to a request the stream did not
// see go out is no stretch.
func TestStreamWaitsBounded(t *testing.T) {
	var ws streamWaits
	const n = 3 * streamWaitSlots
	gap := 2 * int64(streamMergeGap)
	for k := range int64(n) {
		ws.began("peer", k*gap*2)
		ws.ended("peer", k*gap*2+gap)
	}
	got := ws.spans(n * gap * 2)
	if len(got) != streamWaitSlots {
		t.Fatalf("%d stretches kept, want %d", len(got), streamWaitSlots)
	}
	if last := got[len(got)-1]; last != (waitSpan{(n - 1) * gap * 2, (n-1)*gap*2 + gap}) {
		t.Errorf("the newest stretch is %+v", last)
	}

	var ov streamWaits
	ov.began("a", 10)
	ov.began("b", 20)
	ov.ended("a", 30)
	ov.ended("b", 40)
	ov.ended("c", 50) // never seen to go out
	ov.began("a", 1000)
	now := int64(1000 + 2*maxStreamWait)
	want := []waitSpan{{10, 40}, {1000, 1000 + int64(maxStreamWait)}}
	if got := ov.spans(now); !slices.Equal(got, want) {
		t.Errorf("spans %+v, want %+v", got, want)
	}

	// Asked again while a request to the same peer is out, the node has
	// waited since the first; unless that is older than maxStreamWait,
	// given up long since, which ends at its bound.
	ms := int64(time.Millisecond) // apart by more than streamMergeGap
	var again streamWaits
	again.began("a", 10*ms)
	again.began("a", 20*ms)
	again.ended("a", 30*ms)
	late := 40*ms + int64(maxStreamWait)
	again.began("a", 40*ms)
	again.began("a", late+10*ms)
	again.ended("a", late+20*ms)
	want = []waitSpan{{10 * ms, 30 * ms}, {40 * ms, late}, {late + 10*ms, late + 20*ms}}
	if got := again.spans(late + 100*ms); !slices.Equal(got, want) {
		t.Errorf("spans of requests asked again %+v, want %+v", got, want)
	}
}

// TestStreamDataShowsWaiting: a pool's idle stretches come out waiting
// where the node had a request for work out, those in progress at the
// read included, and idle elsewhere.
func TestStreamDataShowsWaiting(t *testing.T) {
	p, s := streamPool(t, 2)
	ms := func(n int) time.Time { return s.start.Add(time.Duration(n) * time.Millisecond) }
	s.add(p.workers[0], eventIdle, 0, ms(10), ms(50))
	p.Port().StreamWaitBegan("n2", ms(30))
	p.Port().StreamWaitEnded("n2", ms(40))
	p.Port().StreamWaitBegan("n2", ms(70))
	p.workers[1].idle.since.Store(ms(60).UnixNano()) // idle from 60 ms on, still at the read
	d := p.View().StreamData("n1", ms(100), time.Second, time.Millisecond)
	at := func(n int) int64 { return ms(n).UnixNano() }
	want := []StreamRect{
		{Worker: 0, Begin: at(10), End: at(30)},
		{Worker: 0, Begin: at(30), End: at(40), Wait: true},
		{Worker: 0, Begin: at(40), End: at(50)},
		{Worker: 1, Begin: at(60), End: at(70)},
		{Worker: 1, Begin: at(70), End: at(100), Wait: true},
	}
	if !slices.Equal(d.Rects, want) {
		t.Errorf("rects %+v, want %+v", d.Rects, want)
	}
}

// BenchmarkStreamDataWaits: what a read of a full stream (4 workers, each
// ring full of frames and idle stretches) costs, without requests for
// work recorded and with the node's ring of them full: the cost of
// splitting idle by waiting, paid once a poll, not by the workers.
func BenchmarkStreamDataWaits(b *testing.B) {
	for _, waits := range []bool{false, true} {
		name := "none"
		if waits {
			name = "full"
		}
		b.Run(name, func(b *testing.B) {
			p := NewPool(4, inline.Default())
			p.View().WatchStream(time.Hour)
			defer p.View().StopStream()
			s := p.view.stream.Load()
			us := func(n int) time.Time { return s.start.Add(time.Duration(n) * time.Microsecond) }
			for _, w := range p.workers {
				for i := range streamSlots {
					what := uint8(eventFrame)
					if i%2 == 1 {
						what = eventIdle
					}
					s.add(w, what, int32(streamKind.ID), us(100*i), us(100*i+90))
				}
			}
			for i := 0; waits && i < streamWaitSlots; i++ {
				p.Port().StreamWaitBegan("n2", us(400*i+110))
				p.Port().StreamWaitEnded("n2", us(400*i+160))
			}
			now := us(100 * streamSlots)
			b.ResetTimer()
			for range b.N {
				p.View().StreamData("n1", now, time.Minute, 10*time.Microsecond)
			}
		})
	}
}
