package transport

import (
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"

	"github.com/tsys-go/tsys/internal/cputime"
)

// rttBody is the size of the message the round-trip benchmarks bounce: a
// steal request or a one-task answer is a few dozen bytes.
const rttBody = 48

// BenchmarkRoundTrip states the floor of a steal's round trip on loopback
// (issue 38): a plain TCP ping-pong in Go, against the transport's own
// round trip of a small message between two Transports in one process,
// keyless and keyed (sealed). One op is one round trip. The share the
// transport adds is (transport - tcp) / tcp; its figures are in
// bench/README.md, "The message path's floor".
//
// Besides ns/op, each reports cpu-ns/op, the CPU time of the whole
// process (both ends, every thread) per round trip: on a machine other
// work keeps busy the wall time mostly measures waiting for a core, and
// the CPU time is what the message path itself costs.
func BenchmarkRoundTrip(b *testing.B) {
	b.Run("tcp", benchTCPPingPong)
	b.Run("plain", func(b *testing.B) { benchTransportRoundTrip(b, nil, false) })
	b.Run("sealed", func(b *testing.B) { benchTransportRoundTrip(b, key1, false) })
	b.Run("plain-inhandler", func(b *testing.B) { benchTransportRoundTrip(b, nil, true) })
	b.Run("sealed-inhandler", func(b *testing.B) { benchTransportRoundTrip(b, key1, true) })
}

// benchTCPPingPong is the floor: two goroutines, one loopback connection,
// a length-prefixed frame of the transport's header and rttBody bytes each
// way, read and written with no buffering or framing library, as the
// plainest Go program would.
func benchTCPPingPong(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	echoed := make(chan error, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			echoed <- err
			return
		}
		defer nc.Close()
		echoed <- echoFrames(nc)
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	frame := make([]byte, headerLen+rttBody)
	binary.BigEndian.PutUint32(frame[6:headerLen], rttBody)
	in := make([]byte, len(frame))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := nc.Write(frame); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(nc, in); err != nil {
			b.Fatal(err)
		}
	}
	nc.Close()
	if err := <-echoed; err != nil && err != io.EOF {
		b.Fatal(err)
	}
}

// echoFrames writes back every frame it reads until the peer closes.
func echoFrames(nc net.Conn) error {
	buf := make([]byte, headerLen+rttBody)
	for {
		if _, err := io.ReadFull(nc, buf[:headerLen]); err != nil {
			return err
		}
		n := headerLen + int(binary.BigEndian.Uint32(buf[6:headerLen]))
		if n > len(buf) {
			return io.ErrShortBuffer
		}
		if _, err := io.ReadFull(nc, buf[headerLen:n]); err != nil {
			return err
		}
		if _, err := nc.Write(buf[:n]); err != nil {
			return err
		}
	}
}

// benchTransportRoundTrip bounces a small message between two Transports
// as package cluster does a steal request and its answer: the request
// goes on the connection the asker dialled, the answer back on the one
// the lender dialled to the asker's listening address, each Send from the
// reader goroutine of the message being answered.
//
// The asker's side is one of two. Without inHandler, as on a node, the
// answer's reader goroutine hands it to the goroutine that asks (a node's
// worker), which sends the next request: a wake-up of another goroutine
// per round trip that the ping-pong does not make. With inHandler the
// reader goroutine sends the next request itself, as the ping-pong's
// goroutine does: what is left above the ping-pong is the transport's own.
func benchTransportRoundTrip(b *testing.B, key []byte, inHandler bool) {
	quiet := slog.New(slog.DiscardHandler)
	cfg := Config{Key: key, Logger: quiet}
	back := make(chan struct{}, 1)
	askerCfg, lenderCfg := cfg, cfg
	askerCfg.Name, lenderCfg.Name = "asker", "lender"
	m := &Message{Type: tData, Body: make([]byte, rttBody)}
	var asker *Transport
	var lenderAddr string
	var left atomic.Int64 // round trips the asker's handler still starts (inHandler)
	asker, err := Listen(askerCfg, func(string, *Message) {
		if !inHandler || left.Add(-1) < 0 {
			back <- struct{}{}
			return
		}
		if err := asker.Send(lenderAddr, m); err != nil {
			b.Error(err)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer asker.Close()
	askerAddr := asker.Addr() // a node keeps its peers' addresses; Addr formats anew
	var lender *Transport
	lender, err = Listen(lenderCfg, func(_ string, m *Message) {
		if err := lender.Send(askerAddr, m); err != nil {
			b.Error(err)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer lender.Close()
	lenderAddr = lender.Addr()
	// Dial and handshake both ways outside the timing.
	if err := asker.SendSync(lenderAddr, m); err != nil {
		b.Fatal(err)
	}
	<-back
	b.ReportAllocs()
	defer reportCPU(b)()
	if inHandler {
		b.ResetTimer()
		left.Store(int64(b.N) - 1)
		if err := asker.Send(lenderAddr, m); err != nil {
			b.Fatal(err)
		}
		<-back
		return
	}
	for b.Loop() {
		if err := asker.Send(lenderAddr, m); err != nil {
			b.Fatal(err)
		}
		<-back
	}
}

// reportCPU starts counting the process's CPU time; the function it
// returns reports it per op as cpu-ns/op.
func reportCPU(b *testing.B) func() {
	start, ok := cputime.Process()
	return func() {
		end, _ := cputime.Process()
		if ok && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
