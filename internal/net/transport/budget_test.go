package transport

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/stranger"
)

// TestSourceKey: an IPv4 address is its own source, an IPv6 address
// shares its /64 with its neighbours.
func TestSourceKey(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.2:4000":            "127.0.0.2",
		"[::ffff:10.0.0.1]:1":       "10.0.0.1",
		"[2001:db8:1:2:3:4:5:6]:80": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ff::1]:81":   "2001:db8:1:2::/64",
		"[2001:db8:1:3::1]:80":      "2001:db8:1:3::/64",
	} {
		ta, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := sourceKey(ta); got != want {
			t.Errorf("sourceKey(%s) = %q, want %q", addr, got, want)
		}
	}
}

// TestBudget: a source's handshakes beyond its share are parked, then
// refused; a parked connection takes the slot of the first handshake of
// its source to end, oldest first; other sources are served meanwhile;
// the node's total is bounded; closing hands back what is parked.
func TestBudget(t *testing.T) {
	b := newBudget(4 * parkTotal)
	if b.parkPerSource != parkPerSource || b.parkTotal != parkTotal {
		t.Fatalf("limits %d and %d, want %d and %d", b.parkPerSource, b.parkTotal, parkPerSource, parkTotal)
	}
	if small := newBudget(1024); small.parkTotal != 256 || small.parkPerSource != 256 {
		t.Fatalf("with 1024 files: parking %d, %d a source; want a quarter", small.parkTotal, small.parkPerSource)
	}
	conn := func() net.Conn { c, _ := net.Pipe(); return c }
	for i := range perSourceHandshakes {
		if a := b.admit("s", conn()); a != admitStart {
			t.Fatalf("connection %d of a source: %v, want admitStart", i, a)
		}
	}
	parked := make([]net.Conn, parkPerSource)
	for i := range parked {
		parked[i] = conn()
		if a := b.admit("s", parked[i]); a != admitParked {
			t.Fatalf("connection %d past the share: %v, want admitParked", i, a)
		}
	}
	if a := b.admit("s", conn()); a != refuseSource {
		t.Fatalf("past the parking: %v, want refuseSource", a)
	}
	if a := b.admit("other", conn()); a != admitStart {
		t.Fatalf("another source: %v, want admitStart", a)
	}
	if next := b.done("s"); next != parked[0] {
		t.Fatal("a handshake's end did not start the connection parked longest")
	}
	if next := b.done("s"); next != parked[1] {
		t.Fatal("the second end did not start the next parked")
	}
	if a := b.admit("s", conn()); a != admitParked {
		t.Fatalf("with a parking space free again: %v", a)
	}
	// Fill the node from many sources: the total holds.
	started := perSourceHandshakes + 1
	for i := 0; started < maxHandshakes; i++ {
		if b.admit(fmt.Sprintf("m%d", i), conn()) == admitStart {
			started++
		}
	}
	if a := b.admit("fresh", conn()); a != refuseTotal {
		t.Fatalf("past maxHandshakes: %v, want refuseTotal", a)
	}
	if b.done("other") != nil || b.sources["other"] != nil {
		t.Fatal("a source with nothing left is kept")
	}
	if a := b.admit("fresh", conn()); a != admitStart {
		t.Fatalf("after a slot was given back: %v", a)
	}
	left := b.close()
	if len(left) != parkPerSource-1 || b.parked != 0 {
		t.Fatalf("close handed back %d parked, want %d", len(left), parkPerSource-1)
	}
	if a := b.admit("fresh", conn()); a != refuseClosed {
		t.Fatalf("after close: %v", a)
	}
	if b.done("s") != nil {
		t.Fatal("a parked connection started after close")
	}
	// The node's parking is shared: one source filling it leaves none
	// to another.
	b = newBudget(40)
	for _, src := range []string{"x", "y"} {
		for range perSourceHandshakes {
			b.admit(src, conn())
		}
	}
	for range b.parkTotal {
		if a := b.admit("x", conn()); a != admitParked {
			t.Fatalf("parking with room: %v", a)
		}
	}
	if a := b.admit("y", conn()); a != refuseTotal {
		t.Fatalf("with the node's parking full: %v, want refuseTotal", a)
	}
}

// TestStrangerCannotStarve: a stranger holding 300 idle connections from
// one address, reopening each as it closes, and sending garbage on more,
// does not keep two nodes from talking, on the connection they hold or on
// fresh ones. The node counts the refusals (the idle connections time out,
// the garbage fails its handshake or, once the garbage has filled the
// source's parking, is refused before it) and logs them at a bounded rate.
func TestStrangerCannotStarve(t *testing.T) {
	defaults := func(c *Config) { c.HandshakeTimeout = DefaultHandshakeTimeout }
	began := time.Now()
	b := start(t, "b", key1, defaults)
	a := start(t, "a", key1, defaults)
	s := stranger.Start(t, b.Addr(), 300)
	// Wait until the stranger's share of b's handshakes is taken, and for
	// the siege to last past a handshake timeout, so that its idle
	// connections have been dropped and taken again.
	siege := time.Now()
	deadline := siege.Add(30 * time.Second)
	for st := b.Stats(); st.OverBudgetConns < 100 || st.RejectedConns < 2*perSourceHandshakes || time.Since(siege) < 3*DefaultHandshakeTimeout/2; st = b.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("the stranger never filled its share: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.in.react(func(from string, m *Message) {
		q := readTest(m)
		if err := b.Send(a.Addr(), testMessage{Type: tReply, ID: q.ID}.msg()); err != nil {
			t.Errorf("reply: %v", err)
		}
	})
	const n = 200
	for i := range n {
		if err := a.SendSync(b.Addr(), testMessage{Type: tRequest, ID: uint64(i)}.msg()); err != nil {
			t.Fatalf("request %d during the stranger's siege: %v", i, err)
		}
	}
	a.in.wait(t, n)
	// Fresh connections too, each with a handshake of its own.
	for range 5 {
		servesGoodPeer(t, b, key1)
	}
	s.Stop()
	elapsed := time.Since(began)
	st := b.Stats()
	t.Logf("in %v the stranger dialled %d times; b: %+v", elapsed.Round(time.Millisecond), s.Dials(), st)
	if st.OverBudgetConns == 0 || st.RejectedConns == 0 {
		t.Errorf("refusals not counted: %+v", st)
	}
	lines := strings.Count(b.log.String(), "transport: refused connection")
	if limit := logBurst + int(elapsed/logInterval) + 1; lines > limit {
		t.Errorf("%d lines of refusals in %v, want at most %d", lines, elapsed, limit)
	}
	if !regexp.MustCompile(`refusals_not_logged=[1-9]`).MatchString(b.log.String()) {
		t.Error("the lines do not say how many refusals were held back")
	}
}
