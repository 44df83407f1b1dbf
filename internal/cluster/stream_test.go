package cluster

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/wire"
)

// TestStreamRequestBounds: a request for a stream longer than a node
// keeps, or drawn finer than minStreamRes, is refused as it is decoded,
// saying what is allowed.
func TestStreamRequestBounds(t *testing.T) {
	for _, m := range []*statsRequest{
		{ID: 1, Stream: maxStreamWindow + time.Second, StreamRes: time.Millisecond},
		{ID: 2, Stream: time.Second, StreamRes: minStreamRes - 1},
	} {
		_, err := decodeMessage(encodeMessage(m))
		if !errors.Is(err, wire.ErrMalformed) {
			t.Errorf("window %v at %v decoded: %v", m.Stream, m.StreamRes, err)
		}
	}
	ok := &statsRequest{ID: 3, Stream: maxStreamWindow, StreamRes: minStreamRes}
	if _, err := decodeMessage(encodeMessage(ok)); err != nil {
		t.Errorf("the widest, finest stream allowed is refused: %v", err)
	}
}

// TestStreamShowsWaitingForWork: a node that has asked the job's root for
// work, and has no answer yet, shows its idle worker waiting on its task
// stream, up to the moment it is read; once the answer (a refusal) has
// come, the worker is idle again, and the wait stays drawn before it. The
// root is a bare transport on real TCP that answers when the test says.
func TestStreamShowsWaitingForWork(t *testing.T) {
	node := testNode(t, Config{Policy: func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy {
		// Refused once, the node does not ask again during the test.
		return fishing.New(self, zone, fishing.Params{RetryBackoff: time.Hour, MaxBackoff: time.Hour})
	}})
	read := func() *sched.StreamData { return node.gatherer.streamSnapshot(time.Minute, minStreamRes).Stream }
	read() // switches the stream on before the request goes out
	const job = 12
	root := servedBy(t, node, "root-answering-late", job)
	var req *stealRequest
	for deadline := time.Now().Add(10 * time.Second); req == nil; {
		select {
		case m := <-root.replies:
			if r, ok := m.(*stealRequest); ok && r.Job == job {
				req = r
			}
		case <-time.After(time.Until(deadline)):
			t.Fatal("the node never asked the job's root for work")
		}
	}
	waitUntil(t, "the worker shows waiting up to the read", func() bool {
		last := lastRect(read(), 0)
		return last != nil && last.Wait
	})
	root.send(node, &stealReply{Job: job, ID: req.ID})
	e := node.jobs.of(job)
	waitUntil(t, "the node heard the answer", func() bool { return e.stealAnswers.Load() == 1 })
	// Idle from the answer on: once that is wider than the resolution,
	// the worker's last stretch is idle, and the wait comes before it.
	var d *sched.StreamData
	waitUntil(t, "the worker shows idle after the answer", func() bool {
		d = read()
		last := lastRect(d, 0)
		return last != nil && !last.Wait && last.Name == ""
	})
	last := lastRect(d, 0)
	if !slices.ContainsFunc(d.Rects, func(r sched.StreamRect) bool { return r.Wait && r.Worker == 0 && r.End <= last.Begin }) {
		t.Errorf("no waiting stretch before the answer: %+v", d.Rects)
	}
}

// lastRect is worker w's last rectangle in d, nil if none.
func lastRect(d *sched.StreamData, w int) *sched.StreamRect {
	var last *sched.StreamRect
	for i, r := range d.Rects {
		if r.Worker == w {
			last = &d.Rects[i]
		}
	}
	return last
}
