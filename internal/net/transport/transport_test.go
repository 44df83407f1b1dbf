package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/tsys-go/tsys/internal/proctest"
	"log/slog"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// logBuf collects a transport's log lines for assertions.
type logBuf struct{ proctest.LockedBuffer }

// waitLog waits until the log holds all the given texts.
func (l *logBuf) waitLog(t *testing.T, texts ...string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("log lines %q", texts), func() bool {
		s := l.String()
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// inbox is a Handler that records what it receives and optionally
// reacts (onMsg, called on the reader goroutine).
type inbox struct {
	mu    sync.Mutex
	msgs  []Message
	from  []string
	onMsg func(from string, m *Message)
}

func (b *inbox) handle(from string, m *Message) {
	b.mu.Lock()
	b.msgs = append(b.msgs, *m)
	b.from = append(b.from, from)
	f := b.onMsg
	b.mu.Unlock()
	if f != nil {
		f(from, m)
	}
}

func (b *inbox) react(f func(from string, m *Message)) {
	b.mu.Lock()
	b.onMsg = f
	b.mu.Unlock()
}

func (b *inbox) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.msgs)
}

func (b *inbox) get(i int) (string, testMessage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.from[i], readTest(&b.msgs[i])
}

func (b *inbox) wait(t *testing.T, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d messages", n), func() bool { return b.len() >= n })
}

type node struct {
	*Transport
	in  *inbox
	log *logBuf
}

// start starts a transport on 127.0.0.1 named name that is closed at the
// end of the test (and checked for leaked goroutines).
func start(t *testing.T, name string, key []byte, mod ...func(*Config)) *node {
	t.Helper()
	lb := &logBuf{}
	in := &inbox{}
	cfg := Config{
		Name:             name,
		Key:              key,
		HandshakeTimeout: 2 * time.Second,
		Logger:           slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, f := range mod {
		f(&cfg)
	}
	if _, seen := leakChecked.LoadOrStore(t, true); !seen {
		// registered first, so it runs after every node's Close
		t.Cleanup(func() {
			leakChecked.Delete(t)
			checkNoGoroutines(t)
		})
	}
	tr, err := Listen(cfg, in.handle)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tr.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if t.Failed() {
			t.Logf("log of %s:\n%s", name, lb.String())
		}
	})
	return &node{tr, in, lb}
}

var leakChecked sync.Map // *testing.T -> true

// checkNoGoroutines fails if a goroutine of this package (other than
// tests) is still running once every transport is closed.
func checkNoGoroutines(t *testing.T) {
	t.Helper()
	var stacks string
	for range 200 {
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		leaked := false
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "tsys/net/transport.(*") && !strings.Contains(g, "_test.go") {
				leaked = true
			}
		}
		if !leaked {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("goroutines of the transport left after Close:\n%s", stacks)
}

var key1 = []byte("cluster key one, 32 bytes long!!")

// TestExchange: messages both ways, replies sent from the handler, order
// kept, names given as from.
func TestExchange(t *testing.T) {
	a := start(t, "a", key1)
	b := start(t, "b", key1)
	b.in.react(func(from string, m *Message) {
		if from != "a" {
			t.Errorf("b got a message from %q", from)
		}
		q := readTest(m)
		r := testMessage{Type: tReply, Job: q.Job, ID: q.ID, Count: int32(q.ID * 10), Payload: []byte{byte(q.ID)}}
		if err := b.Send(a.Addr(), r.msg()); err != nil {
			t.Errorf("reply: %v", err)
		}
	})
	const n = 50
	for i := range n {
		if err := a.Send(b.Addr(), testMessage{Type: tRequest, Job: 1, ID: uint64(i), Count: 2}.msg()); err != nil {
			t.Fatal(err)
		}
	}
	a.in.wait(t, n)
	for i := range n {
		from, m := a.in.get(i)
		if from != "b" || m.Type != tReply || m.ID != uint64(i) || m.Count != int32(i*10) || len(m.Payload) != 1 || m.Payload[0] != byte(i) {
			t.Fatalf("reply %d: from %q %+v", i, from, m)
		}
	}
	for i := range n {
		if _, m := b.in.get(i); m.ID != uint64(i) || m.Count != 2 {
			t.Fatalf("request %d out of order: %+v", i, m)
		}
	}
	// A sender counts a frame once its write returns, which may be after
	// the peer has already read it and replied: let the counters settle.
	sa, sb := a.Stats(), b.Stats()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); sa, sb = a.Stats(), b.Stats() {
		if sa.MessagesSent == n && sb.MessagesSent == n {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if sa.MessagesSent != n || sb.MessagesReceived != n || sb.MessagesSent != n || sa.MessagesReceived != n {
		t.Fatalf("stats: a %+v b %+v", sa, sb)
	}
	if sa.BytesSent != sb.BytesReceived {
		t.Fatalf("a sent %d bytes, b received %d", sa.BytesSent, sb.BytesReceived)
	}
}

// TestBatching: many small messages sent at once travel in few frames.
// They are queued before the connection is up, so they pile up whatever
// the scheduling (a writer that keeps up with the sender writes small
// frames, by design: it never waits for more).
func TestBatching(t *testing.T) {
	a := start(t, "a", nil)
	b := start(t, "b", nil)
	const n = 20000
	for i := 1; i <= n; i++ {
		if err := a.Send(b.Addr(), testMessage{Type: tData, Job: 2, ID: uint64(i), Payload: []byte{byte(i), byte(i >> 8)}}.msg()); err != nil {
			t.Fatal(err)
		}
	}
	b.in.wait(t, n)
	for i := 1; i <= n; i++ {
		if _, m := b.in.get(i - 1); m.ID != uint64(i) || m.Payload[0] != byte(i) {
			t.Fatalf("message %d: %+v", i, m)
		}
	}
	st := a.Stats()
	t.Logf("%d messages in %d frames, %d bytes, %d compressed", st.MessagesSent, st.FramesSent, st.BytesSent, st.CompressedFrames)
	if st.FramesSent > n/2 {
		t.Fatalf("%d messages took %d frames: no batching", st.MessagesSent, st.FramesSent)
	}
}

// TestFrameCap: what is queued is cut into frames of about batchCap at
// message boundaries; a message larger than that gets a frame of its own,
// and none exceeds MaxFrame.
func TestFrameCap(t *testing.T) {
	tr := start(t, "a", nil, func(c *Config) { c.MaxFrame = 3 << 20 })
	c := &conn{t: tr.Transport, addr: "test", wake: make(chan struct{}, 1)}
	small := testMessage{Type: tData, ID: 1, Payload: make([]byte, 100)}.msg()
	for range 25000 { // 2.6 MB
		if err := c.enqueue(small, nil); err != nil {
			t.Fatal(err)
		}
	}
	big := testMessage{Type: tData, ID: 2, Payload: make([]byte, 2<<20)}.msg()
	if err := c.enqueue(big, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.enqueue(small, nil); err != nil {
		t.Fatal(err)
	}
	msgs := 0
	for i, ch := range c.pending {
		p := len(ch.b) - headerLen
		t.Logf("frame %d: %d messages, %d bytes", i, ch.msgs, p)
		if p > tr.cfg.MaxFrame || ch.msgs > 1 && p > batchCap+200 {
			t.Fatalf("frame %d of %d bytes", i, p)
		}
		n, err := decodeBatch(ch.b[headerLen:], func(*Message) error { return nil })
		if err != nil || n != ch.msgs {
			t.Fatalf("frame %d: %d of %d messages decode, %v", i, n, ch.msgs, err)
		}
		msgs += n
	}
	if msgs != 25002 || len(c.pending) != 5 {
		t.Fatalf("%d messages in %d frames", msgs, len(c.pending))
	}
}

// TestLargeCompressed: a large compressible payload is compressed on the
// wire and arrives intact; an incompressible one goes uncompressed.
func TestLargeCompressed(t *testing.T) {
	a := start(t, "a", key1)
	b := start(t, "b", key1)
	tiles := tileData(t)
	big := bytes.Repeat(bytes.Join(tiles, nil), 100) // 3.6 MiB: several frames' worth
	if err := a.SendSync(b.Addr(), testMessage{Type: tData, Job: 1, ID: 1, Payload: big}.msg()); err != nil {
		t.Fatal(err)
	}
	st := a.Stats()
	if st.CompressedFrames != 1 || st.BytesSent > uint64(len(big))/2 {
		t.Fatalf("compressible payload: %+v", st)
	}
	rnd := randBytes(rand.New(rand.NewPCG(9, 9)), 1<<20)
	if err := a.SendSync(b.Addr(), testMessage{Type: tData, Job: 1, ID: 2, Payload: rnd}.msg()); err != nil {
		t.Fatal(err)
	}
	if st2 := a.Stats(); st2.CompressedFrames != 1 {
		t.Fatalf("random payload was sent compressed: %+v", st2)
	}
	b.in.wait(t, 2)
	if _, m := b.in.get(0); !bytes.Equal(m.Payload, big) {
		t.Fatal("compressed payload differs")
	}
	if _, m := b.in.get(1); !bytes.Equal(m.Payload, rnd) {
		t.Fatal("random payload differs")
	}
	if b.Stats().BytesReceived != a.Stats().BytesSent {
		t.Fatalf("bytes: sent %d, received %d", a.Stats().BytesSent, b.Stats().BytesReceived)
	}
}

// servesGoodPeer checks that n still accepts and serves a peer with key.
func servesGoodPeer(t *testing.T, n *node, key []byte) {
	t.Helper()
	good := start(t, "good", key)
	before := n.in.len()
	if err := good.SendSync(n.Addr(), testMessage{Type: tPing, ID: 42}.msg()); err != nil {
		t.Fatalf("good peer: %v", err)
	}
	n.in.wait(t, before+1)
	if from, m := n.in.get(before); from != "good" || m.ID != 42 {
		t.Fatalf("good peer's message: from %q %+v", from, m)
	}
}

func TestWrongKey(t *testing.T) {
	b := start(t, "b", key1)
	a := start(t, "a", []byte("another cluster's key"))
	err := a.SendSync(b.Addr(), testMessage{Type: tPing}.msg())
	if !errors.Is(err, ErrKeyMismatch) || !strings.Contains(err.Error(), `peer "b" failed authentication: cluster keys differ`) {
		t.Fatalf("SendSync with a wrong key: %v", err)
	}
	t.Log(err)
	b.log.waitLog(t, "refused connection", `peer \"a\" failed authentication: cluster keys differ`)
	waitFor(t, "rejected count", func() bool { return b.Stats().RejectedConns == 1 })
	if a.Stats().DialFailures != 1 || b.in.len() != 0 {
		t.Fatalf("a %+v, b got %d messages", a.Stats(), b.in.len())
	}
	// async Send: logged and counted, not returned
	if err := a.Send(b.Addr(), testMessage{Type: tPing}.msg()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "second dial failure", func() bool { return a.Stats().DialFailures == 2 })
	a.log.waitLog(t, "connection refused by handshake")
	waitFor(t, "2 dropped messages", func() bool { return a.Stats().DroppedMessages == 2 })
	if st := a.Stats(); st.DialFailures != 2 || st.MessagesSent != 0 {
		t.Fatalf("stats %+v", st)
	}
	servesGoodPeer(t, b, key1)
}

func TestKeylessVersusKeyed(t *testing.T) {
	keyed := start(t, "keyed", key1)
	keyless := start(t, "keyless", nil)

	err := keyless.SendSync(keyed.Addr(), testMessage{Type: tPing}.msg())
	if !errors.Is(err, ErrAuthMode) || !strings.Contains(err.Error(), `peer "keyed" uses a cluster key, this node has none`) {
		t.Fatalf("keyless -> keyed: %v", err)
	}
	keyed.log.waitLog(t, `peer \"keyless\" has no cluster key, this node requires one`)

	err = keyed.SendSync(keyless.Addr(), testMessage{Type: tPing}.msg())
	if !errors.Is(err, ErrAuthMode) || !strings.Contains(err.Error(), `peer "keyless" has no cluster key, this node requires one`) {
		t.Fatalf("keyed -> keyless: %v", err)
	}
	keyless.log.waitLog(t, `peer \"keyed\" uses a cluster key, this node has none`)

	if keyed.Stats().RejectedConns != 1 || keyless.Stats().RejectedConns != 1 {
		t.Fatalf("rejected: keyed %d, keyless %d", keyed.Stats().RejectedConns, keyless.Stats().RejectedConns)
	}
	servesGoodPeer(t, keyed, key1)
	servesGoodPeer(t, keyless, nil)
}

// rawConn dials n and returns the connection with a reader.
func rawConn(t *testing.T, n *node) (net.Conn, *bufio.Reader) {
	t.Helper()
	nc, err := net.Dial("tcp", n.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	return nc, bufio.NewReader(nc)
}

// TestOtherVersion: a client speaking the next protocol version is refused
// with a log line naming both versions, and it can read our Hello before
// the connection closes.
func TestOtherVersion(t *testing.T) {
	n := start(t, "n", key1)
	nc, br := rawConn(t, n)
	future := frameBytes(false, helloMsg(hello{version: ProtocolVersion + 1, flags: helloKeyed, name: "future", nonce: make([]byte, 32)}))
	future[4] = ProtocolVersion + 1
	if _, err := nc.Write(future); err != nil {
		t.Fatal(err)
	}
	body, err := readSingle(br, msgHello)
	m, derr := decodeHello(body)
	if err != nil || derr != nil || m.version != ProtocolVersion || m.name != "n" {
		t.Fatalf("our hello: %+v, %v, %v", m, err, derr)
	}
	if _, err := br.ReadByte(); err == nil {
		t.Fatal("connection still open after a hello of another version")
	}
	n.log.waitLog(t, "refused connection", fmt.Sprintf("peer speaks tsys protocol v%d, this node v%d", ProtocolVersion+1, ProtocolVersion))
	if n.Stats().RejectedConns != 1 {
		t.Fatalf("rejected %d", n.Stats().RejectedConns)
	}
	servesGoodPeer(t, n, key1)
}

// TestVersionErrorFromDialer: the dialling side reports a peer of the next
// version with both versions in the error.
func TestVersionErrorFromDialer(t *testing.T) {
	a := start(t, "a", nil)
	addr := fakePeer(t, func(nc net.Conn) {
		future := frameBytes(false, helloMsg(hello{version: ProtocolVersion + 1, name: "future", nonce: make([]byte, 32)}))
		future[4] = ProtocolVersion + 1
		nc.Write(future)
		nc.Read(make([]byte, 100))
	})
	err := a.SendSync(addr, testMessage{Type: tPing}.msg())
	var ve *VersionError
	want := fmt.Sprintf("peer speaks tsys protocol v%d, this node v%d", ProtocolVersion+1, ProtocolVersion)
	if !errors.As(err, &ve) || ve.Peer != ProtocolVersion+1 || ve.Local != ProtocolVersion || !strings.Contains(err.Error(), want) {
		t.Fatalf("SendSync to a peer of the next version: %v", err)
	}
	t.Log(err)
}

// TestBadPeersBeforeHandshake: garbage, an oversized length, a truncated
// frame and silence are refused and logged; the listener keeps serving.
func TestBadPeersBeforeHandshake(t *testing.T) {
	n := start(t, "n", nil, func(c *Config) { c.HandshakeTimeout = 300 * time.Millisecond })
	hello := frameBytes(false, helloMsg(hello{version: ProtocolVersion, name: "x", nonce: make([]byte, 32)}))
	oversized := bytes.Clone(hello[:headerLen])
	putHeader(oversized, 0, 1<<30)
	cases := []struct {
		name, send, want string
	}{
		{"garbage", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", `bad magic \"GET \"`},
		{"oversized", string(oversized), "frame length 1073741824 exceeds limit 4096"},
		{"truncated", string(hello[:len(hello)-3]), "truncated frame"},
		{"silent", "", "i/o timeout"},
	}
	for i, c := range cases {
		nc, _ := rawConn(t, n)
		if c.send != "" {
			nc.Write([]byte(c.send))
		}
		if c.name == "truncated" {
			nc.(*net.TCPConn).CloseWrite()
		}
		n.log.waitLog(t, c.want)
		waitFor(t, c.name+" rejected", func() bool { return n.Stats().RejectedConns == uint64(i+1) })
	}
	servesGoodPeer(t, n, nil)
}

// rawFrame frames the concatenation of parts as it is.
func rawFrame(parts ...any) []byte {
	p := make([]byte, headerLen)
	for _, x := range parts {
		switch x := x.(type) {
		case []byte:
			p = append(p, x...)
		case byte:
			p = append(p, x)
		}
	}
	putHeader(p, 0, len(p)-headerLen)
	return p
}

// handshaken returns a raw connection to n past a keyless handshake, to
// send bad frames on an established connection.
func handshaken(t *testing.T, n *node) net.Conn {
	t.Helper()
	nc, br := rawConn(t, n)
	if err := writeSingle(nc, msgHello, (&hello{version: ProtocolVersion, name: "raw", nonce: bytes.Repeat([]byte{7}, 32)}).encode()); err != nil {
		t.Fatal(err)
	}
	if _, err := readSingle(br, msgHello); err != nil {
		t.Fatal(err)
	}
	return nc
}

// TestBadFramesAfterHandshake: an established connection that sends a
// bad frame is closed with a logged reason, counted, and the listener
// keeps serving.
func TestBadFramesAfterHandshake(t *testing.T) {
	n := start(t, "n", nil, func(c *Config) { c.MaxFrame = 1 << 16 })
	// Its payload read as s2 announces fewer bytes than it holds: corrupt.
	ping := frameBytes(false, testMessage{Type: tPing, ID: 1, Payload: bytes.Repeat([]byte{0xff}, 8)}.msg())
	bad := func(f func([]byte)) []byte { b := bytes.Clone(ping); f(b); return b }
	oversized := bad(func(b []byte) { putHeader(b, 0, 1<<16+1) })
	cases := []struct {
		name  string
		bytes []byte
		want  string
	}{
		{"garbage", []byte("\x00\x01garbage and more garbage"), "bad magic"},
		{"another version", bad(func(b []byte) { b[4] = ProtocolVersion + 1 }), fmt.Sprintf("peer speaks tsys protocol v%d, this node v%d", ProtocolVersion+1, ProtocolVersion)},
		{"oversized", oversized, "frame length 65537 exceeds limit 65536"},
		{"truncated", ping[:len(ping)-1], fmt.Sprintf("truncated frame: %d of %d payload bytes", len(ping)-headerLen-1, len(ping)-headerLen)},
		{"undecodable", rawFrame(AppendMessage(nil, testMessage{Type: tPing}.msg()), byte(tPing), byte(5), byte(1)), "message 2 of frame: type 3: malformed message: truncated body: 5 bytes announced, 1 left"},
		{"bad message", rawFrame([]byte{0, 0}), "message type 0"},
		{"hello again", frameBytes(false, helloMsg(hello{version: ProtocolVersion, nonce: make([]byte, 32)})), "Hello message after the handshake"},
		{"corrupt s2", bad(func(b []byte) { b[5] = flagCompressed }), "corrupt compressed payload"},
		{"empty frame", bad(func(b []byte) { putHeader(b, 0, 0) })[:headerLen], "empty frame"},
	}
	for i, c := range cases {
		nc := handshaken(t, n)
		if _, err := nc.Write(frameBytes(false, testMessage{Type: tPing, ID: uint64(100 + i)}.msg())); err != nil {
			t.Fatal(err)
		}
		nc.Write(c.bytes)
		if c.name == "truncated" {
			nc.(*net.TCPConn).CloseWrite()
		}
		n.log.waitLog(t, c.want)
		waitFor(t, c.name+" counted", func() bool { return n.Stats().ProtocolErrors == uint64(i+1) })
		if _, err := bufio.NewReader(nc).ReadByte(); err == nil {
			t.Fatalf("%s: connection still open", c.name)
		}
	}
	if n.Stats().RejectedConns != 0 {
		t.Fatalf("rejected %d", n.Stats().RejectedConns)
	}
	servesGoodPeer(t, n, nil)
}

func TestListenErrors(t *testing.T) {
	a := start(t, "a", nil)
	_, err := Listen(Config{Bind: a.Addr()}, func(string, *Message) {})
	if err == nil || err.Error() != "listen "+a.Addr()+": address already in use" {
		t.Fatalf("port in use: %v", err)
	}
	for _, bind := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		_, err = Listen(Config{Bind: bind}, func(string, *Message) {})
		if !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "--key-file") {
			t.Fatalf("keyless on %s: %v", bind, err)
		}
	}
	t.Log(err)
	if _, err := Listen(Config{Name: strings.Repeat("n", maxNameLen+1)}, func(string, *Message) {}); err == nil {
		t.Fatal("long name accepted")
	}
	tr, err := Listen(Config{Bind: "0.0.0.0:0", Key: key1, Logger: slog.New(slog.DiscardHandler)}, func(string, *Message) {})
	if err != nil {
		t.Fatalf("keyed on 0.0.0.0: %v", err)
	}
	if tr.Name() != tr.Addr() {
		t.Fatalf("default name %q, addr %q", tr.Name(), tr.Addr())
	}
	tr.Close()
}

func TestSendErrors(t *testing.T) {
	a := start(t, "a", nil, func(c *Config) { c.MaxFrame = 1 << 12; c.MaxQueue = 1 << 20 })
	b := start(t, "b", nil)
	if err := a.Send(b.Addr(), &Message{Type: msgHello}); err == nil {
		t.Fatal("Hello accepted by Send")
	}
	if err := a.Send(b.Addr(), &Message{Type: 0}); err == nil {
		t.Fatal("type 0 accepted by Send")
	}
	err := a.Send(b.Addr(), testMessage{Type: tData, Payload: make([]byte, 5000)}.msg())
	if err == nil || !strings.Contains(err.Error(), "exceeds MaxFrame 4096") {
		t.Fatalf("oversized message: %v", err)
	}
	// messages that fill frames exactly still go through
	for i := range 20 {
		if err := a.Send(b.Addr(), testMessage{Type: tData, ID: uint64(i), Payload: make([]byte, 4000)}.msg()); err != nil {
			t.Fatal(err)
		}
	}
	b.in.wait(t, 20)
	a.Close()
	if err := a.Send(b.Addr(), testMessage{Type: tPing}.msg()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Close: %v", err)
	}
	if err := a.SendSync(b.Addr(), testMessage{Type: tPing}.msg()); !errors.Is(err, ErrClosed) {
		t.Fatalf("SendSync after Close: %v", err)
	}
}

// TestRedial: a peer that goes away is redialled by the next Send once it
// is back (on the same address).
func TestRedial(t *testing.T) {
	a := start(t, "a", key1)
	b := start(t, "b", key1)
	addr := b.Addr()
	if err := a.SendSync(addr, testMessage{Type: tPing, ID: 1}.msg()); err != nil {
		t.Fatal(err)
	}
	b.in.wait(t, 1) // closing with unread data would reset the connection
	b.Close()
	a.log.waitLog(t, "peer closed the connection")
	err := a.SendSync(addr, testMessage{Type: tPing, ID: 2}.msg())
	if err == nil || !strings.Contains(err.Error(), "dial "+addr+": connection refused") {
		t.Fatalf("SendSync to a closed peer: %v", err)
	}
	t.Log(err)
	if a.Stats().DialFailures != 1 {
		t.Fatalf("dial failures %d", a.Stats().DialFailures)
	}
	b2 := start(t, "b2", key1, func(c *Config) { c.Bind = addr })
	if err := a.SendSync(addr, testMessage{Type: tPing, ID: 3}.msg()); err != nil {
		t.Fatal(err)
	}
	b2.in.wait(t, 1)
	if from, m := b2.in.get(0); from != "a" || m.ID != 3 {
		t.Fatalf("after redial: %q %+v", from, m)
	}
}

// TestQueueFull: a peer that never completes the handshake lets the
// queue fill up to MaxQueue, then Send fails.
func TestQueueFull(t *testing.T) {
	a := start(t, "a", nil, func(c *Config) { c.MaxQueue = 1 << 16 })
	addr := fakePeer(t, silent)
	var sendErr error
	for i := 0; i < 1000 && sendErr == nil; i++ {
		sendErr = a.Send(addr, testMessage{Type: tData, Payload: make([]byte, 1000)}.msg())
	}
	if !errors.Is(sendErr, ErrQueueFull) {
		t.Fatalf("got %v, want ErrQueueFull", sendErr)
	}
	t.Log(sendErr)
}

// TestCloseFlushes: messages queued on an established connection when
// Close is called are still written.
func TestCloseFlushes(t *testing.T) {
	b := start(t, "b", nil)
	a := start(t, "a", nil)
	if err := a.SendSync(b.Addr(), testMessage{Type: tRequest, Job: 1}.msg()); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if err := a.Send(b.Addr(), testMessage{Type: tData, Job: 1, ID: uint64(i)}.msg()); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	b.in.wait(t, 1001)
}

// TestConcurrentSendClose: Sends from many goroutines racing with Close
// return nil or ErrClosed, and nothing is left running.
func TestConcurrentSendClose(t *testing.T) {
	b := start(t, "b", nil)
	c := start(t, "c", nil)
	a := start(t, "a", nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				to := b.Addr()
				if i%2 == 0 {
					to = c.Addr()
				}
				m := testMessage{Type: tData, ID: uint64(i), Payload: make([]byte, g*100)}.msg()
				var err error
				if i%50 == 0 {
					err = a.SendSync(to, m)
				} else {
					err = a.Send(to, m)
				}
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("send: %v", err)
					return
				}
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	a.Close()
	wg.Wait()
	// The SendSyncs to c that returned were written: c gets them. (b may
	// get nothing when a starved writer had not connected yet.)
	waitFor(t, "messages at c", func() bool { return c.in.len() > 0 })
}

// TestCloseDuringHandshake: Close does not wait for a peer that stalls
// the handshake.
func TestCloseDuringHandshake(t *testing.T) {
	addr := fakePeer(t, silent)
	a := start(t, "a", nil, func(c *Config) { c.HandshakeTimeout = time.Minute })
	if err := a.Send(addr, testMessage{Type: tPing}.msg()); err != nil {
		t.Fatal(err)
	}
	// and an inbound connection that never says hello
	nc, _ := rawConn(t, a)
	_ = nc
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	a.Close()
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("Close took %v", d)
	}
}

// BenchmarkSend: small messages from one node to another, over loopback,
// until the receiver has handled them all.
func BenchmarkSend(b *testing.B) {
	for _, size := range []int{8, 1024, 12 << 10} {
		b.Run(fmt.Sprintf("payload-%d", size), func(b *testing.B) {
			var got atomicCounter
			quiet := slog.New(slog.DiscardHandler)
			rx, err := Listen(Config{Name: "rx", Logger: quiet}, func(string, *Message) { got.add() })
			if err != nil {
				b.Fatal(err)
			}
			defer rx.Close()
			tx, err := Listen(Config{Name: "tx", Logger: quiet}, func(string, *Message) {})
			if err != nil {
				b.Fatal(err)
			}
			defer tx.Close()
			payload := bytes.Repeat([]byte("tile"), size/4)
			tm := testMessage{Type: tData, Job: 1, Payload: payload}
			m := tm.msg()
			if err := tx.SendSync(rx.Addr(), m); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			n := 1
			for b.Loop() {
				tm.ID = uint64(n)
				m = tm.msg()
				for tx.Send(rx.Addr(), m) != nil { // queue full: let it drain
					time.Sleep(time.Millisecond)
				}
				n++
			}
			for got.load() < int64(n) {
				time.Sleep(100 * time.Microsecond)
			}
			st := tx.Stats()
			b.ReportMetric(float64(st.MessagesSent)/float64(st.FramesSent), "msgs/frame")
		})
	}
}

type atomicCounter struct{ v atomic.Int64 }

func (c *atomicCounter) add()        { c.v.Add(1) }
func (c *atomicCounter) load() int64 { return c.v.Load() }

// fakePeer listens on loopback and hands its first connection to serve,
// closing it afterwards: a peer that speaks only as much of the protocol as
// a test needs. It returns the address to dial.
func fakePeer(t *testing.T, serve func(nc net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		serve(nc)
	}()
	return ln.Addr().String()
}

// TestDialAnotherKindOfPort: a dial to a port that hangs up without a
// hello (a node's gossip port, say, given for its task port) says which
// address a node prints for its tasks.
func TestDialAnotherKindOfPort(t *testing.T) {
	addr := fakePeer(t, func(nc net.Conn) {})
	a := start(t, "a", nil)
	err := a.SendSync(addr, testMessage{Type: tPing}.msg())
	if err == nil || !strings.Contains(err.Error(), "is it a tsys task address?") {
		t.Errorf("a send to a port that hangs up: %v; want the hint about the task address", err)
	}
}

// TestDialAnHTTPPort: a dial to an HTTP server (a node's --http address
// given for its task address) is not a tsys peer (ErrNotTsys), and says
// which address was likely given.
func TestDialAnHTTPPort(t *testing.T) {
	addr := fakePeer(t, func(nc net.Conn) {
		nc.Read(make([]byte, 64))
		nc.Write([]byte("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"))
	})
	a := start(t, "a", nil)
	err := a.SendSync(addr, testMessage{Type: tPing}.msg())
	if !errors.Is(err, ErrNotTsys) || !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "--http address") || !strings.Contains(err.Error(), "tasks HOST:PORT") {
		t.Errorf("a send to an HTTP server: %v; want ErrNotTsys, naming the --http address and the task address", err)
	}
}

// silent is a peer that never says a word: it reads until closed.
func silent(nc net.Conn) { nc.Read(make([]byte, 1<<16)) }

// TestCloseWithStuckPeer: Close returns soon even when a writer is blocked
// on a peer that completed the handshake but reads nothing.
func TestCloseWithStuckPeer(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	addr := fakePeer(t, func(nc net.Conn) {
		writeSingle(nc, msgHello, (&hello{version: ProtocolVersion, name: "stuck", nonce: bytes.Repeat([]byte{9}, 32)}).encode())
		readSingle(bufio.NewReader(nc), msgHello)
		<-release // and never read again
	})
	a := start(t, "a", nil)
	big := randBytes(rand.New(rand.NewPCG(5, 5)), 1<<20)
	if err := a.SendSync(addr, testMessage{Type: tPing}.msg()); err != nil {
		t.Fatal(err)
	}
	for range 48 {
		if err := a.Send(addr, testMessage{Type: tData, Payload: big}.msg()); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	t0 := time.Now()
	a.Close()
	d := time.Since(t0)
	t.Logf("Close took %v; %+v", d, a.Stats())
	if d > 3*time.Second {
		t.Fatalf("Close took %v", d)
	}
	if a.Stats().DroppedMessages == 0 {
		t.Fatal("nothing dropped: the peer cannot have read 48 MiB")
	}
}

// helloMsg is a hello as the transport sends it.
func helloMsg(h hello) *Message { return &Message{Type: msgHello, Body: h.encode()} }
