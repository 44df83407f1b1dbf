package transport

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
	"time"
)

// steppingClock is a clock a millisecond later at every reading: every
// Send finds its connection quiet for longer than directGap.
func steppingClock(c *Config) {
	var ticks atomic.Int64
	c.now = func() time.Time { return time.Unix(0, 0).Add(time.Duration(ticks.Add(1)) * time.Millisecond) }
}

// A Send on an established connection quiet for directGap writes its frame itself,
// without waking the connection's writer goroutine: the hand-off that
// BenchmarkRoundTrip found above a plain TCP ping-pong.
func TestSendWritesItselfOnAnIdleConnection(t *testing.T) {
	if !canTryWrite {
		t.Skip("no direct writes on this platform")
	}
	for _, key := range [][]byte{nil, key1} {
		a, b := connectedPair(t, key)
		for i := range 10 {
			if err := a.Send(b.Addr(), &Message{Type: tData, Body: []byte{byte(i)}}); err != nil {
				t.Fatal(err)
			}
			b.in.wait(t, i+2)
		}
		if got := a.st.directFrames.Load(); got == 0 {
			t.Errorf("keyed %v: no frame written by its Send, want the Sends on the idle connection to write theirs", key != nil)
		}
		b.in.mu.Lock()
		for i, m := range b.in.msgs[1:] {
			if len(m.Body) != 1 || m.Body[0] != byte(i) {
				t.Errorf("keyed %v: message %d has %v, want [%d]", key != nil, i+1, m.Body, i)
			}
		}
		b.in.mu.Unlock()
	}
}

// A peer that stops reading fills the socket: Sends that began a frame
// leave its tail to the writer goroutine, later ones queue behind it, and
// every message arrives once, in order, when the peer reads again.
func TestDirectWritesKeepOrderWhenThePeerStopsReading(t *testing.T) {
	if !canTryWrite {
		t.Skip("no direct writes on this platform")
	}
	for _, key := range [][]byte{nil, key1} {
		// Whether a Send finds the socket full, rather than the writer
		// already at work on it, is the scheduler's to decide: a loaded
		// machine may run the writer first every time. Every attempt
		// checks order and counts; a few let one of them fill the socket.
		const attempts = 5
		filled := false
		for range attempts {
			if filled = directWritesKeepOrder(t, key); filled || t.Failed() {
				break
			}
		}
		if !filled && !t.Failed() {
			t.Errorf("keyed %v: no Send left a tail to the writer in %d attempts: the test did not fill the socket", key != nil, attempts)
		}
	}
}

// directWritesKeepOrder runs TestDirectWritesKeepOrderWhenThePeerStopsReading
// once, and says whether a Send left a tail to the writer.
func directWritesKeepOrder(t *testing.T, key []byte) bool {
	t.Helper()
	a, b := start(t, "a", key, steppingClock), start(t, "b", key)
	release := make(chan struct{})
	b.in.react(func(_ string, m *Message) {
		if len(m.Body) > 0 && m.Body[0] == 0 {
			<-release // the first message holds b's reader: a's socket fills
		}
	})
	const n, size = 6000, 2 << 10 // more than loopback's buffers hold
	body := make([]byte, size)
	for i := range n {
		body[0] = byte(min(i, 1))
		binary.BigEndian.PutUint32(body[1:], uint32(i))
		send := a.Send
		if i == 0 {
			send = a.SendSync // connected before the rest, which then find the writer idle
		}
		if err := send(b.Addr(), &Message{Type: tData, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	b.in.wait(t, n)
	if b.in.len() != n {
		t.Fatalf("keyed %v: %d messages arrived, want %d", key != nil, b.in.len(), n)
	}
	b.in.mu.Lock()
	for i, m := range b.in.msgs {
		if got := binary.BigEndian.Uint32(m.Body[1:]); got != uint32(i) {
			t.Fatalf("keyed %v: message %d is number %d: out of order", key != nil, i, got)
		}
	}
	b.in.mu.Unlock()
	// a's counters move just after its last write returns, which may
	// be after b has read it
	waitFor(t, "every message counted sent", func() bool { return a.Stats().MessagesSent >= n })
	if s := a.Stats(); s.MessagesSent != n || s.DroppedMessages != 0 {
		t.Errorf("keyed %v: Stats: %d sent, %d dropped, want %d and 0", key != nil, s.MessagesSent, s.DroppedMessages, n)
	}
	if sent, got := a.Stats().BytesSent, b.Stats().BytesReceived; sent != got {
		t.Errorf("keyed %v: %d bytes sent, %d received: a frame begun by its Send is counted short", key != nil, sent, got)
	}
	return a.st.directTails.Load() > 0
}

// The writer goroutine's flush leaves its write deadline on the socket. A
// Send on a connection idle for longer than that (writeTimeout) leaves its
// frame to the writer, which sets a fresh deadline, rather than failing the
// connection with a timeout, which would cost a busy pair of nodes their
// connection once per writeTimeout of quiet.
func TestDirectWriteAfterTheWritersDeadline(t *testing.T) {
	if !canTryWrite {
		t.Skip("no direct writes on this platform")
	}
	for _, key := range [][]byte{nil, key1} {
		a, b := connectedPair(t, key)
		a.mu.Lock()
		for c := range a.conns {
			c.mu.Lock()
			if err := c.nc.SetWriteDeadline(time.Now().Add(-time.Second)); err != nil {
				t.Fatal(err)
			}
			c.mu.Unlock()
		}
		a.mu.Unlock()
		for i := range 3 {
			if err := a.Send(b.Addr(), &Message{Type: tData, Body: []byte{byte(i)}}); err != nil {
				t.Fatal(err)
			}
			b.in.wait(t, i+2)
		}
		if got := a.st.droppedMessages.Load(); got != 0 {
			t.Errorf("keyed %v: %d messages dropped after the deadline passed, want none", key != nil, got)
		}
	}
}

// connectedPair starts transports a (on a clock that steps, for direct
// writes) and b, keyed by key, with a connection from a to b that has
// carried one message.
func connectedPair(t *testing.T, key []byte) (a, b *node) {
	t.Helper()
	a, b = start(t, "a", key, steppingClock), start(t, "b", key)
	if err := a.SendSync(b.Addr(), &Message{Type: tData, Body: []byte("hello")}); err != nil {
		t.Fatal(err)
	}
	return a, b
}
