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

// testConn is a connection the budget can hold: only its identity counts.
type testConn struct{ net.Conn }

func newTestConn() net.Conn { return &testConn{} }

// TestBudget: a source's handshakes beyond its share are parked, then the
// oldest parked is let go; a freed slot goes to the newest parked; other
// sources are served meanwhile; the node's total is bounded; closing
// hands back what is parked.
func TestBudget(t *testing.T) {
	const grace = 250 * time.Millisecond
	now := time.Unix(1000, 0)
	b := newBudget(4*parkTotal, grace)
	b.waiting = func(net.Conn) bool { return false }
	b.probe = func(net.Conn) sockState { return sockEmpty }
	if b.parkPerSource != parkPerSource || b.parkTotal != parkTotal {
		t.Fatalf("limits %d and %d, want %d and %d", b.parkPerSource, b.parkTotal, parkPerSource, parkTotal)
	}
	if small := newBudget(1024, grace); small.parkTotal != 256 || small.parkPerSource != 256 {
		t.Fatalf("with 1024 files: parking %d, %d a source; want a quarter", small.parkTotal, small.parkPerSource)
	}
	admit := func(key string, nc net.Conn, want admission, wantVictim net.Conn) {
		t.Helper()
		if a, v, p := b.admit(key, nc, now); a != want || v != wantVictim || p != nil {
			t.Fatalf("admit from %s: %v, victim %v; want %v, victim %v", key, a, v, want, wantVictim)
		}
	}
	var active []net.Conn
	for range perSourceHandshakes {
		nc := newTestConn()
		admit("s", nc, admitStart, nil)
		active = append(active, nc)
	}
	// All within the grace: nothing is idle long enough to lose its slot.
	parked := make([]net.Conn, parkPerSource)
	for i := range parked {
		parked[i] = newTestConn()
		admit("s", parked[i], admitParked, nil)
	}
	// Past the parking, the oldest parked is let go for the newest.
	last := newTestConn()
	admit("s", last, admitParked, parked[0])
	parked = append(parked[1:], last)
	admit("other", newTestConn(), admitStart, nil)
	if next := b.done("s", active[0], now); next != last {
		t.Fatal("a handshake's end did not start the newest parked connection")
	}
	if next := b.done("s", active[1], now); next != parked[len(parked)-2] {
		t.Fatal("the second end did not start the next newest")
	}
	if b.done("s", active[1], now) != nil {
		t.Fatal("a handshake ended twice freed two slots")
	}
	// Bytes waiting on one of the newest parked connections put it first.
	early := parked[len(parked)-scanParked] // the oldest of those asked
	b.waiting = func(nc net.Conn) bool { return nc == early }
	b.probe = func(net.Conn) sockState { return sockEmpty }
	if next := b.done("s", active[2], now); next != early {
		t.Fatal("a parked connection with bytes waiting was not started first")
	}
	b.waiting = func(net.Conn) bool { return false }
	b.probe = func(net.Conn) sockState { return sockEmpty }
	if b.parked != parkPerSource-3 {
		t.Fatalf("%d parked, want %d", b.parked, parkPerSource-3)
	}
	// Fill the node from many sources: the total holds.
	started := perSourceHandshakes + 1
	for i := 0; started < maxHandshakes; i++ {
		if a, _, _ := b.admit(fmt.Sprintf("m%d", i), newTestConn(), now); a == admitStart {
			started++
		}
	}
	admit("fresh", newTestConn(), refuseTotal, nil)
	left := b.close()
	if len(left) != parkPerSource-3 || b.parked != 0 {
		t.Fatalf("close handed back %d parked, want %d", len(left), parkPerSource-3)
	}
	admit("fresh", newTestConn(), refuseClosed, nil)
	if b.done("s", active[3], now) != nil {
		t.Fatal("a parked connection started after close")
	}
	// The node's parking is shared: one source filling it leaves none
	// to another.
	b = newBudget(40, grace)
	b.waiting = func(net.Conn) bool { return false }
	b.probe = func(net.Conn) sockState { return sockEmpty }
	for _, src := range []string{"x", "y"} {
		for range perSourceHandshakes {
			admit(src, newTestConn(), admitStart, nil)
		}
	}
	for range b.parkTotal {
		admit("x", newTestConn(), admitParked, nil)
	}
	admit("y", newTestConn(), refuseTotal, nil)
}

// TestBudgetIdleGivesWay: a handshake that has read nothing for the
// grace loses its slot to a new connection of its source, idlest first;
// one that read within the grace, or has bytes waiting, or is younger
// than the grace, keeps it; with the node full, the idlest handshake of
// any source gives way; the evicted one's end frees nothing. A handshake
// that read a Hello and stalls (a forged Hello, without the key for the
// Auth) is idle from its last read.
func TestBudgetIdleGivesWay(t *testing.T) {
	const grace = 250 * time.Millisecond
	t0 := time.Unix(1000, 0)
	b := newBudget(0, grace)
	var pending net.Conn
	b.waiting = func(nc net.Conn) bool { return nc == pending }
	b.probe = func(net.Conn) sockState { return sockEmpty }
	conns := make([]net.Conn, perSourceHandshakes)
	for i := range conns {
		conns[i] = newTestConn()
		if a, v, _ := b.admit("s", conns[i], t0.Add(time.Duration(i)*time.Millisecond)); a != admitStart || v != nil {
			t.Fatalf("connection %d: %v, %v", i, a, v)
		}
	}
	b.progress("s", conns[0], t0.Add(100*time.Millisecond))
	pending = conns[1]
	peer := newTestConn()
	if a, v, _ := b.admit("s", peer, t0.Add(grace-time.Millisecond)); a != admitParked || v != nil {
		t.Fatalf("within the grace: %v, victim %v; want parked, none", a, v)
	}
	later := t0.Add(grace + 10*time.Millisecond)
	peer2 := newTestConn()
	a, v, _ := b.admit("s", peer2, later)
	if a != admitStart || v != conns[2] {
		t.Fatalf("past the grace: %v, victim %v; want admitStart, the oldest idle (conns[2])", a, v)
	}
	if !b.wasEvicted(conns[2]) || b.wasEvicted(conns[3]) {
		t.Fatal("wasEvicted does not name the evicted connection alone")
	}
	if next := b.done("s", conns[2], later); next != nil {
		t.Fatal("the evicted handshake's end started a parked connection: its slot is the new one's")
	}
	if b.wasEvicted(conns[2]) {
		t.Fatal("an evicted connection is remembered after its end")
	}
	if b.active != perSourceHandshakes || len(b.sources["s"].active) != perSourceHandshakes {
		t.Fatalf("%d active (%d of s), want %d", b.active, len(b.sources["s"].active), perSourceHandshakes)
	}
	// The node full: a new source takes the slot of the oldest idle
	// handshake anywhere.
	for i := 0; b.active < maxHandshakes; i++ {
		b.admit(fmt.Sprintf("m%d", i), newTestConn(), later)
	}
	for _, nc := range conns[4:] {
		b.progress("s", nc, later)
	}
	if a, v, _ := b.admit("new", newTestConn(), later); a != admitStart || v != conns[3] {
		t.Fatalf("node full, idle ones: %v, victim %v; want admitStart, conns[3]", a, v)
	}
	if b.active != maxHandshakes {
		t.Fatalf("%d active, want %d", b.active, maxHandshakes)
	}
	// The rest read or came within the grace: the node refuses.
	if a, v, _ := b.admit("new", newTestConn(), later); a != refuseTotal || v != nil {
		t.Fatalf("node full, nothing idle past the grace: %v, %v", a, v)
	}

	b = newBudget(0, grace)
	b.waiting = func(net.Conn) bool { return false }
	b.probe = func(net.Conn) sockState { return sockEmpty }
	for i := range conns {
		conns[i] = newTestConn()
		b.admit("s", conns[i], t0)
		b.progress("s", conns[i], t0.Add(10*time.Millisecond))
	}
	if a, v, _ := b.admit("s", newTestConn(), t0.Add(grace)); a != admitParked || v != nil {
		t.Fatalf("a grace after admission, less after the Hellos: %v, victim %v; want parked, none", a, v)
	}
	if a, v, _ := b.admit("s", newTestConn(), t0.Add(10*time.Millisecond+grace)); a != admitStart || v != conns[0] {
		t.Fatalf("a grace after the Hellos: %v, victim %v; want admitStart, conns[0]", a, v)
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
	if !regexp.MustCompile(`refused connection[^\n]* not_logged=[1-9]`).MatchString(b.log.String()) {
		t.Error("the lines do not say how many refusals were held back")
	}
}

// TestBudgetPromotesParkedWithBytes: when an idle handshake gives way, a
// parked connection of its source whose bytes have arrived takes the
// slot ahead of the new one, whose bytes cannot have; the new one parks.
func TestBudgetPromotesParkedWithBytes(t *testing.T) {
	const grace = 250 * time.Millisecond
	t0 := time.Unix(1000, 0)
	b := newBudget(0, grace)
	var peer net.Conn = newTestConn()
	b.waiting = func(nc net.Conn) bool { return nc == peer }
	b.probe = func(net.Conn) sockState { return sockEmpty }
	conns := make([]net.Conn, perSourceHandshakes)
	for i := range conns {
		conns[i] = newTestConn()
		b.admit("s", conns[i], t0)
	}
	if a, v, p := b.admit("s", peer, t0.Add(time.Millisecond)); a != admitParked || v != nil || p != nil {
		t.Fatalf("the peer within the grace: %v, %v, %v; want parked", a, v, p)
	}
	late := newTestConn()
	a, v, p := b.admit("s", late, t0.Add(grace+time.Millisecond))
	if a != admitParked || v != conns[0] || p != peer {
		t.Fatalf("past the grace: %v, victim %v, promoted %v; want parked, conns[0], the peer", a, v, p)
	}
	if b.parked != 1 || b.sources["s"].parked[0].nc != late || len(b.sources["s"].active) != perSourceHandshakes || b.active != perSourceHandshakes {
		t.Fatalf("after the promotion: %d parked, %d active", b.parked, b.active)
	}
	if b.done("s", conns[0], t0.Add(grace+2*time.Millisecond)) != nil {
		t.Fatal("the evicted handshake's end started a parked connection")
	}
	if next := b.done("s", peer, t0.Add(grace+3*time.Millisecond)); next != late {
		t.Fatal("the promoted handshake's end did not start the parked one")
	}
}

// TestArrived: the first bytes of a Hello frame, whole or in part, are
// told from other protocols and from frames no Hello has.
func TestArrived(t *testing.T) {
	hello := AppendMessage(make([]byte, headerLen), &Message{Type: msgHello, Body: []byte("hello body")})
	putHeader(hello, 0, len(hello)-headerLen)
	for b, want := range map[string]sockState{
		string(hello[:headerLen]):      sockHello,
		string(hello[:3]):              sockHello,
		"TSYS\x08\x00\xff\xff\xff\xff": sockWaiting, // 4 GiB: no handshake frame
		"TSYS\x63\x00\x00\x00\x00\x01": sockWaiting, // another version
		"TSYS\x08\x02\x00\x00\x00\x10": sockWaiting, // sealed: no handshake frame
		"GET / HTTP/1.1\r\n":           sockWaiting,
		"\x16\x03\x01\x02\x00\x01":     sockWaiting,
	} {
		if got := arrived([]byte(b)); got != want {
			t.Errorf("arrived(%q) = %v, want %v", b, got, want)
		}
	}
}

// TestBudgetKeepsParkedHellos: a source whose parking is full lets go,
// of its oldest, of one whose Hello has not arrived, and a freed slot
// goes to a Hello among the oldest parked when none is among the newest:
// a peer's parked connection outlives a stranger's garbage and empty
// connections, and is started ahead of them.
func TestBudgetKeepsParkedHellos(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBudget(40, time.Second) // parking: 10
	state := map[net.Conn]sockState{}
	b.probe = func(nc net.Conn) sockState { return state[nc] }
	b.waiting = func(nc net.Conn) bool { return state[nc] == sockHello || state[nc] == sockWaiting }
	var active []net.Conn
	for range perSourceHandshakes {
		nc := newTestConn()
		b.admit("s", nc, now)
		active = append(active, nc)
	}
	parked := make([]net.Conn, b.parkPerSource)
	for i := range parked {
		parked[i] = newTestConn()
		if a, _, _ := b.admit("s", parked[i], now); a != admitParked {
			t.Fatalf("parked %d: %v", i, a)
		}
	}
	peer := parked[0]
	state[peer], state[parked[1]], state[parked[2]] = sockHello, sockWaiting, sockGone
	for _, want := range parked[1:4] {
		if a, v, _ := b.admit("s", newTestConn(), now); a != admitParked || v != want {
			t.Fatalf("parking full: %v, victim %v; want parked, %v", a, v, want)
		}
	}
	if b.sources["s"].parked[0].nc != peer {
		t.Fatal("the parked connection with its Hello waiting was let go")
	}
	if next := b.done("s", active[0], now); next != peer {
		t.Fatal("a freed slot did not go to the oldest parked's Hello, none being among the newest")
	}
}

// TestBudgetAdmitsMembersAhead: a source full of handshakes that are all
// making progress (no idle one to give way) parks a stranger's new
// connection, but starts at once one whose Hello names a member at its
// address, in the slot of the oldest stranger's; a member's connection
// parked before its Hello arrived goes ahead at the source's next
// admission; and a member's handshake never gives its slot to another
// member's.
func TestBudgetAdmitsMembersAhead(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBudget(0, time.Second)
	members := map[net.Conn]bool{}
	b.member = func(nc net.Conn) bool { return members[nc] }
	b.probe = func(net.Conn) sockState { return sockEmpty }
	b.waiting = func(net.Conn) bool { return false }
	strangers := make([]net.Conn, perSourceHandshakes)
	for i := range strangers {
		strangers[i] = newTestConn()
		if a, _, _ := b.admit("s", strangers[i], now); a != admitStart {
			t.Fatalf("stranger %d: %v", i, a)
		}
	}
	if a, v, _ := b.admit("s", newTestConn(), now); a != admitParked || v != nil {
		t.Fatalf("a stranger's connection to a full source: %v, victim %v; want parked", a, v)
	}
	peer := newTestConn()
	members[peer] = true
	if a, v, p := b.admit("s", peer, now); a != admitStart || v != strangers[0] || p != nil {
		t.Fatalf("a member's connection to a full source: %v, victim %v, promoted %v; want started in strangers[0]'s slot", a, v, p)
	}

	late := newTestConn() // parked before its Hello came
	if a, _, _ := b.admit("s", late, now); a != admitParked {
		t.Fatalf("a connection with nothing arrived: %v, want parked", a)
	}
	members[late] = true
	next := newTestConn()
	if a, v, p := b.admit("s", next, now); a != admitParked || v != strangers[1] || p != late {
		t.Fatalf("the next admission with a member parked: %v, victim %v, promoted %v; want parked, strangers[1], the member", a, v, p)
	}
	if len(b.sources["s"].active) != perSourceHandshakes || b.active != perSourceHandshakes {
		t.Fatalf("%d handshakes of the source, %d in all; want the slots kept, %d", len(b.sources["s"].active), b.active, perSourceHandshakes)
	}

	// Every slot a member's: another member's connection parks rather
	// than take a member's slot.
	for i := 2; i < perSourceHandshakes; i++ {
		m := newTestConn()
		members[m] = true
		if a, v, _ := b.admit("s", m, now); a != admitStart || v != strangers[i] {
			t.Fatalf("member %d: %v, victim %v; want started in strangers[%d]'s slot", i, a, v, i)
		}
	}
	one := newTestConn()
	members[one] = true
	if a, v, _ := b.admit("s", one, now); a != admitParked || v != nil {
		t.Fatalf("a member's connection with every slot a member's: %v, victim %v; want parked", a, v)
	}
}
