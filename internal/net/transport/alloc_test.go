package transport

import (
	"bytes"
	"net"
	"testing"
	"time"
)

// discardConn is a connection whose writes vanish at once: the writer's
// own allocations, without a socket's.
type discardConn struct{ net.Conn }

func (discardConn) Write(b []byte) (int, error)      { return len(b), nil }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }

// A small message queued on an idle connection and written allocates
// nothing: the chunk and the pending queue's backing array are the last
// message's. A steal and its answer are such messages.
func TestIdleSendAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	tr := &Transport{cfg: Config{MaxFrame: DefaultMaxFrame, MaxQueue: 4 * DefaultMaxFrame, CompressThreshold: DefaultCompressThreshold}}
	c := tr.newConn("peer", false)
	c.nc = discardConn{}
	m := &Message{Type: tData, Body: make([]byte, 48)}
	allocs := testing.AllocsPerRun(100, func() {
		if err := c.enqueue(m, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.flush(time.Second); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("queuing and writing a 48-byte message allocates %v times, want 0", allocs)
	}
	if got := tr.Stats().MessagesSent; got != 101 {
		t.Errorf("MessagesSent = %d, want 101", got)
	}
}

// Reading a frame allocates only its payload, which the messages decoded
// from it keep.
func TestReadFrameAllocatesOnlyThePayload(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	f := frameBytes(false, &Message{Type: tData, Body: make([]byte, 48)})
	r := bytes.NewReader(f)
	var s frameScratch
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(f)
		p, _, err := readFrame(r, 1<<16, &s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != 50 {
			t.Fatalf("payload of %d bytes, want 50", len(p))
		}
	})
	if allocs != 1 {
		t.Errorf("reading a frame allocates %v times, want 1 (its payload)", allocs)
	}
}
