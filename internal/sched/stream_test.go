package sched

import (
	"context"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/tsys-go/tsys/inline"
)

// streamKind is a registered kind whose frames run their do, for the
// stream's tests: the stream names frames by their registered ID.
var streamKind = func() *Kind {
	k := &Kind{Name: "sched.streamtest", Run: func(h *Header, x *Ctx) { (*frame)(unsafe.Pointer(h)).do(x) }}
	if err := RegisterKind(k); err != nil {
		panic(err)
	}
	return k
}()

// streamPool is a pool of workers, driven by hand, whose stream is on.
func streamPool(t *testing.T, workers int) (*Pool, *Stream) {
	p := NewPool(workers, inline.Default())
	p.View().WatchStream(time.Hour)
	t.Cleanup(p.View().StopStream)
	return p, p.view.stream.Load()
}

// TestStreamRingKeepsTheNewest: past its size, a worker's ring gives its
// newest streamSlots-1 events, in the order they were added (the oldest
// slot is the one the worker may be writing).
func TestStreamRingKeepsTheNewest(t *testing.T) {
	p, s := streamPool(t, 2)
	w := p.workers[1]
	at := func(i int) time.Time { return s.start.Add(time.Duration(i) * time.Millisecond) }
	const made = 3*streamSlots + 5
	for i := range made {
		// Frames and idle stretches by turns: nothing merges.
		what := eventFrame
		if i%2 == 1 {
			what = eventIdle
		}
		s.add(w, what, int32(streamKind.ID), at(i), at(i).Add(time.Microsecond))
	}
	got := s.rings[1].read(nil)
	if len(got) != streamSlots-1 {
		t.Fatalf("read %d events, want the ring's %d", len(got), streamSlots-1)
	}
	for j, e := range got {
		i := made - streamSlots + 1 + j
		if want := int64(time.Duration(i) * time.Millisecond); e.begin != want || e.end != want+int64(time.Microsecond) {
			t.Fatalf("event %d spans %d..%d, want event %d's", j, e.begin, e.end, i)
		}
		if wantIdle := i%2 == 1; (e.what == eventIdle) != wantIdle {
			t.Fatalf("event %d is what=%d, want idle=%v", j, e.what, wantIdle)
		}
	}
	if n := len(s.rings[0].read(nil)); n != 0 {
		t.Errorf("worker 0 has %d events, want none", n)
	}
}

// TestStreamMergesRunsOfOneTask: frames of one task within
// streamMergeGap of each other share a slot, which counts them; a frame
// further away, or of another kind of event, takes a slot of its own.
func TestStreamMergesRunsOfOneTask(t *testing.T) {
	p, s := streamPool(t, 1)
	w := p.workers[0]
	t0 := s.start
	us := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Microsecond) }
	for i := range 100 { // 100 frames of 1µs, 1µs apart
		s.add(w, eventFrame, int32(streamKind.ID), us(2*i), us(2*i+1))
	}
	s.add(w, eventFrame, int32(streamKind.ID), us(1000), us(1001)) // 801µs after the run
	s.add(w, eventIdle, 0, us(1001), us(1002))
	got := s.rings[0].read(nil)
	if len(got) != 3 {
		t.Fatalf("%d slots, want 3: the run, the late frame, the idle stretch: %+v", len(got), got)
	}
	if got[0].frames != 100 || got[0].begin != 0 || got[0].end != int64(199*time.Microsecond) {
		t.Errorf("the run's slot is %+v, want 100 frames over 0..199µs", got[0])
	}
	if got[1].frames != 1 || got[2].what != eventIdle {
		t.Errorf("the late frame and the idle stretch are %+v, %+v", got[1], got[2])
	}
}

// TestStreamReadWhileWritten: a reader racing the worker that writes
// never gets a slot the worker was reusing: each event it reads is whole
// and they follow each other without a gap.
func TestStreamReadWhileWritten(t *testing.T) {
	p, s := streamPool(t, 1)
	w := p.workers[0]
	const made = 20 * streamSlots
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range made {
			what := eventFrame
			if i%2 == 1 {
				what = eventIdle
			}
			b := s.start.Add(time.Duration(i) * time.Millisecond)
			s.add(w, what, int32(streamKind.ID), b, b.Add(time.Duration(i%1000)*time.Nanosecond))
		}
	}()
	reads := 0
	for finished := false; !finished; reads++ {
		select {
		case <-done:
			finished = true
		default:
		}
		got := s.rings[0].read(nil)
		for j, e := range got {
			i := e.begin / int64(time.Millisecond)
			if e.end-e.begin != i%1000 || (e.what == eventIdle) != (i%2 == 1) {
				t.Fatalf("read %d: event %d is torn: %+v", reads, j, e)
			}
			if j > 0 && i != got[j-1].begin/int64(time.Millisecond)+1 {
				t.Fatalf("read %d: event %d (%d) does not follow %d", reads, j, i, got[j-1].begin/int64(time.Millisecond))
			}
		}
	}
}

// TestStreamDataDrawsToResolution: the answer keeps the window, names the
// frames, keeps idle stretches apart, and joins what is too narrow to
// draw: neighbouring frames of one task into one rectangle, short frames
// of several tasks into a Mixed batch named by the one that took most.
func TestStreamDataDrawsToResolution(t *testing.T) {
	p, s := streamPool(t, 1)
	w := p.workers[0]
	other := &Kind{Name: "sched.streamtest.other", Run: func(*Header, *Ctx) {}}
	if err := RegisterKind(other); err != nil {
		t.Fatal(err)
	}
	ms := func(n float64) time.Time { return s.start.Add(time.Duration(n * float64(time.Millisecond))) }
	k, o := int32(streamKind.ID), int32(other.ID)
	s.add(w, eventFrame, k, ms(0), ms(50))    // before the window
	s.add(w, eventFrame, k, ms(100), ms(130)) // wide
	s.add(w, eventIdle, 0, ms(130), ms(150))  // wide idle
	for i := range 10 {                       // narrow, by turns, 0.2ms each: k takes 0.6ms in three, o 0.4ms
		kind := o
		if i%3 == 0 {
			kind = k
		}
		s.add(w, eventFrame, kind, ms(150+0.2*float64(i)), ms(150.2+0.2*float64(i)))
	}
	s.add(w, eventFrame, o, ms(160), ms(190)) // wide
	now := ms(200)
	d := p.View().StreamData("n1", now, 120*time.Millisecond, time.Millisecond)
	if !d.On || d.Workers != 1 || d.Node != "n1" {
		t.Fatalf("header %+v", d)
	}
	base := s.start.UnixNano()
	at := func(n float64) int64 { return base + int64(n*float64(time.Millisecond)) }
	want := []StreamRect{
		{Name: streamKind.Name, Begin: at(100), End: at(130), Frames: 1},
		{Name: "", Begin: at(130), End: at(150)},
		{Name: other.Name, Begin: at(150), End: at(152), Frames: 10, Mixed: true},
		{Name: other.Name, Begin: at(160), End: at(190), Frames: 1},
	}
	if len(d.Rects) != len(want) {
		t.Fatalf("rects %+v, want %+v", d.Rects, want)
	}
	for i := range want {
		if d.Rects[i] != want[i] {
			t.Errorf("rect %d is %+v, want %+v", i, d.Rects[i], want[i])
		}
	}
}

// TestStreamSwitchesOnDuringARun: a pool serving tasks records nothing
// until watched; switched on mid-run, its stream fills with the frames its
// workers run; switched off, it records nothing more, and the run goes on
// and ends well.
func TestStreamSwitchesOnDuringARun(t *testing.T) {
	p := NewPool(2, inline.Default())
	stop := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		_, err := p.Serve(context.Background(), stop)
		served <- err
	}()
	var ran sync.WaitGroup
	inject := func(n int) {
		for range n {
			ran.Add(1)
			f := &frame{do: func(*Ctx) {
				defer ran.Done()
				for t0 := time.Now(); time.Since(t0) < 100*time.Microsecond; {
				}
			}}
			f.Init(streamKind)
			p.Port().Inject(&f.Header)
		}
		ran.Wait()
	}
	inject(20)
	if p.View().Streaming() || p.View().StreamData("n", time.Now(), time.Minute, time.Millisecond).On {
		t.Fatal("the stream is on before anyone watched")
	}
	p.View().WatchStream(time.Hour)
	frames := func() (n int64) {
		for _, r := range p.View().StreamData("n", time.Now(), time.Minute, time.Microsecond).Rects {
			if r.Name == streamKind.Name {
				n += r.Frames
			}
		}
		return n
	}
	deadline := time.Now().Add(20 * time.Second)
	for frames() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the stream kept no frame of 20s of tasks run while it was on")
		}
		inject(20)
	}
	p.View().StopStream()
	inject(20)
	if p.View().Streaming() || len(p.View().StreamData("n", time.Now(), time.Minute, time.Millisecond).Rects) != 0 {
		t.Error("the stream still keeps events once stopped")
	}
	close(stop)
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestStreamLingers: a stream nobody watches any more switches itself off
// once its linger has passed since the last watch.
func TestStreamLingers(t *testing.T) {
	p := NewPool(1, inline.Default())
	p.View().WatchStream(time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for p.View().Streaming() {
		if time.Now().After(deadline) {
			t.Fatal("the stream is still on 10s after its 1ms linger")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestStreamSamplesRunningFrames: samples of a frame still running, taken
// within streamSampleGap of each other, draw one stretch of its task that
// counts no frame ended; a sample further away starts another.
func TestStreamSamplesRunningFrames(t *testing.T) {
	p, s := streamPool(t, 1)
	w := p.workers[0]
	for i := range 10 {
		s.sample(w, streamKind, s.start.Add(time.Duration(i)*streamSampleGap/2))
	}
	s.sample(w, streamKind, s.start.Add(10*streamSampleGap))
	got := s.rings[0].read(nil)
	if len(got) != 2 {
		t.Fatalf("%d slots, want 2: %+v", len(got), got)
	}
	if got[0].begin != 0 || got[0].end != int64(9*streamSampleGap/2) || got[0].frames != 0 || got[0].ref != int32(streamKind.ID) {
		t.Errorf("the sampled stretch is %+v, want %v of %s and no frame", got[0], 9*streamSampleGap/2, streamKind.Name)
	}
}

// TestStreamSamplesAFrameBegunBeforeIt: a frame that began before the
// stream was switched on, and inlines its spawns, shows in the stream
// while it still runs: its executor switches tracking on at an inlining
// grant and samples it there; and it ends without a tracked frame of its
// own, the run ending well.
func TestStreamSamplesAFrameBegunBeforeIt(t *testing.T) {
	p := NewPool(1, inline.Everything())
	began := make(chan struct{})
	watched := make(chan struct{})
	sampled := func() bool {
		for _, r := range p.View().StreamData("n", time.Now(), time.Minute, time.Microsecond).Rects {
			if r.Name == streamKind.Name {
				return true
			}
		}
		return false
	}
	var saw bool
	root := &frame{do: func(x *Ctx) {
		close(began)
		<-watched
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
			x.AskSpawn(nil) // an inlined spawn's ask: a grant each time
			if saw = sampled(); saw {
				return
			}
		}
	}}
	root.Init(streamKind)
	go func() {
		<-began
		p.View().WatchStream(time.Hour)
		close(watched)
	}()
	if _, err := p.Run(context.Background(), &root.Header); err != nil {
		t.Fatalf("Run: %v", err)
	}
	p.View().StopStream()
	if !saw {
		t.Fatal("20s of grants inside a frame begun before the stream left no sample of it")
	}
}
