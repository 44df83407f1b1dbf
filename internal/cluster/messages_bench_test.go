package cluster

import (
	"log/slog"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/transport"
)

// benchMessages are the messages of a job's steady state, as a node
// sends them most: a steal, its answer lending 16 tasks of one kind, a
// result and a load report; and the largest a job sends once, a start
// with fingerprints.
func benchMessages() []struct {
	name string
	m    message
} {
	reply := &stealReply{Job: 7, ID: 1000, ReplyTo: "127.0.0.1:40001"}
	for i := range 16 {
		reply.Tasks = append(reply.Tasks, taskRecord{ID: 1<<40 + uint64(i), Kind: "uts.search", Arg: make([]byte, 60), Span: time.Duration(i) * time.Microsecond})
	}
	start := &jobStart{Job: 7, ReplyTo: "127.0.0.1:40001", Began: 1_700_000_000_000_000_000, Binary: "uts (example.com/uts)", Printed: true}
	for _, name := range []string{"uts.search", "uts.root", "fib", "sort.merge"} {
		start.Tasks = append(start.Tasks, name)
		start.Prints = append(start.Prints, taskPrint{Types: "func(int) int", Hash: 1 << 60})
	}
	return []struct {
		name string
		m    message
	}{
		{"steal-request", &stealRequest{Job: 7, ID: 1000, Want: 4, ReplyTo: "127.0.0.1:40002"}},
		{"steal-reply-16", reply},
		{"result", &result{Job: 7, Task: 1<<40 + 3, Value: make([]byte, 8), Span: time.Millisecond}},
		{"load-report", &loadReport{Job: 7, Load: clusterpolicy.Load{Ready: 12, Workers: 2, Idle: 1, Rate: 1.75, Busy: 1.9, TaskTime: 42 * time.Microsecond}}},
		{"job-start", start},
	}
}

// BenchmarkMessageCodec: one op encodes a message and decodes it, as its
// sender and its receiver do.
func BenchmarkMessageCodec(b *testing.B) {
	for _, c := range benchMessages() {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(encodeMessage(c.m).Body)))
			for b.Loop() {
				if _, err := decodeMessage(encodeMessage(c.m)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMessageRoundTrip is a steal's round trip on loopback with the
// messages a node sends, encoded and decoded at each end: a steal request
// from the asker, a one-task answer from the lender, as
// transport.BenchmarkRoundTrip's "plain" bounces bytes. One op is one
// round trip.
func BenchmarkMessageRoundTrip(b *testing.B) {
	cfg := transport.Config{Logger: slog.New(slog.DiscardHandler)}
	back := make(chan message, 1)
	asker, err := transport.Listen(cfg, func(_ string, tm *transport.Message) {
		m, err := decodeMessage(tm)
		if err != nil {
			b.Error(err)
		}
		back <- m
	})
	if err != nil {
		b.Fatal(err)
	}
	defer asker.Close()
	askerAddr := asker.Addr()
	var lender *transport.Transport
	lender, err = transport.Listen(cfg, func(_ string, tm *transport.Message) {
		m, err := decodeMessage(tm)
		if err != nil {
			b.Error(err)
			return
		}
		req := m.(*stealRequest)
		reply := &stealReply{Job: req.Job, ID: req.ID, ReplyTo: "127.0.0.1:40001",
			Tasks: []taskRecord{{ID: 1<<40 + req.ID, Kind: "uts.search", Arg: make([]byte, 20)}}}
		if err := lender.Send(askerAddr, encodeMessage(reply)); err != nil {
			b.Error(err)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer lender.Close()
	lenderAddr := lender.Addr()
	ask := func(id uint64) {
		if err := asker.Send(lenderAddr, encodeMessage(&stealRequest{Job: 7, ID: id, Want: 1, ReplyTo: askerAddr})); err != nil {
			b.Fatal(err)
		}
		if r, ok := (<-back).(*stealReply); !ok || r.ID != id || len(r.Tasks) != 1 {
			b.Fatalf("answer %+v to request %d", r, id)
		}
	}
	ask(1) // dial and handshake both ways outside the timing
	b.ReportAllocs()
	id := uint64(1)
	for b.Loop() {
		id++
		ask(id)
	}
}
