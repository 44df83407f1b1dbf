package membership

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/tsys-go/tsys/internal/proctest"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuf collects log output from many goroutines, also after the test
// ended (memberlist logs asynchronously).
type syncBuf = proctest.LockedBuffer

func newLogger(buf *syncBuf, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: level}))
}

// recorder keeps the events a node received.
type recorder struct {
	mu  sync.Mutex
	evs []Event
}

func (r *recorder) add(e Event) {
	r.mu.Lock()
	r.evs = append(r.evs, e)
	r.mu.Unlock()
}

func (r *recorder) find(kind EventKind, name string) (Event, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.evs {
		if e.Kind == kind && e.Member.Name == name {
			return e, true
		}
	}
	return Event{}, false
}

type node struct {
	*Membership
	rec *recorder
	log *syncBuf
}

func start(t *testing.T, cfg Config) *node {
	t.Helper()
	n, err := tryStart(t, cfg)
	if err != nil {
		t.Fatalf("Start(%s): %v", cfg.Name, err)
	}
	return n
}

func tryStart(t *testing.T, cfg Config) (*node, error) {
	t.Helper()
	n := &node{rec: &recorder{}, log: &syncBuf{}}
	if cfg.Bind == "" {
		cfg.Bind = "127.0.0.1:0"
	}
	cfg.Fast = true
	if cfg.JoinTimeout == 0 {
		cfg.JoinTimeout = 3 * time.Second
	}
	cfg.Logger = newLogger(n.log, slog.LevelWarn)
	if cfg.Meta.Transport == "" {
		cfg.Meta.Transport = "transport-of-" + cfg.Name
	}
	m, err := Start(cfg, n.rec.add)
	if err != nil {
		return nil, err
	}
	n.Membership = m
	t.Cleanup(func() { _ = m.Shutdown() })
	return n, nil
}

// eventually waits until cond holds. usual is how long it takes on an
// idle machine; the wait goes on to ten times that, and at least
// patience, so that a loaded machine (load 30 on 2 cores), where gossip
// gets its share of the CPU late, makes the test wait rather than fail.
func eventually(t *testing.T, usual time.Duration, what string, cond func() bool) {
	t.Helper()
	bound := max(10*usual, patience)
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s (it usually takes under %v)", bound, what, usual)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// patience is the least eventually waits.
const patience = 30 * time.Second

func names(ms []Member) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.Name
	}
	return strings.Join(s, ",")
}

func cluster(t *testing.T, n int, key []byte) []*node {
	t.Helper()
	var nodes []*node
	for i := range n {
		cfg := Config{Name: fmt.Sprintf("n%d", i), Key: key, Meta: Meta{Zone: fmt.Sprintf("z%d", i%2)}}
		if i > 0 {
			cfg.Join = []string{nodes[i-1].Addr()}
		}
		nodes = append(nodes, start(t, cfg))
	}
	want := names(nodes[0].Members()[:0])
	for i := range n {
		if want != "" {
			want += ","
		}
		want += fmt.Sprintf("n%d", i)
	}
	for _, nd := range nodes {
		eventually(t, 5*time.Second, nd.Name()+" to see "+want, func() bool {
			return names(nd.Members()) == want
		})
	}
	return nodes
}

func TestThreeNodesSeeEachOther(t *testing.T) {
	nodes := cluster(t, 3, nil)
	for _, nd := range nodes {
		ms := nd.Members()
		for i, m := range ms {
			wantName := fmt.Sprintf("n%d", i)
			if m.Name != wantName {
				t.Fatalf("%s: member %d is %q, want %q", nd.Name(), i, m.Name, wantName)
			}
			if m.Meta.Transport != "transport-of-"+wantName || m.Meta.Zone != fmt.Sprintf("z%d", i%2) || m.Meta.Version != ProtocolVersion {
				t.Errorf("%s sees %s with meta %+v", nd.Name(), m.Name, m.Meta)
			}
			if m.Gossip != nodes[i].Addr() {
				t.Errorf("%s sees %s at %s, its Addr() is %s", nd.Name(), m.Name, m.Gossip, nodes[i].Addr())
			}
		}
		// Joined events for the two others, none for itself.
		for _, other := range nodes {
			_, ok := nd.rec.find(Joined, other.Name())
			if other == nd && ok {
				t.Errorf("%s got a Joined event for itself", nd.Name())
			}
			if other != nd {
				eventually(t, 2*time.Second, nd.Name()+" Joined event for "+other.Name(), func() bool {
					_, ok := nd.rec.find(Joined, other.Name())
					return ok
				})
			}
		}
	}
	self := nodes[1].Self()
	if self.Name != "n1" || self.Gossip != nodes[1].Addr() || self.Meta.Transport != "transport-of-n1" {
		t.Errorf("Self() = %+v", self)
	}
}

func TestSetLoadPropagates(t *testing.T) {
	nodes := cluster(t, 3, nil)
	// Many quick updates are coalesced; the last one must arrive.
	for i := range 20 {
		if err := nodes[0].SetLoad(Load{Ready: i, Workers: 8, Idle: 2, Rate: 1.5}); err != nil {
			t.Fatal(err)
		}
	}
	want := Load{Ready: 19, Workers: 8, Idle: 2, Rate: 1.5}
	for _, nd := range nodes[1:] {
		eventually(t, 3*time.Second, nd.Name()+" to see n0's load", func() bool {
			return nd.Members()[0].Meta.Load == want
		})
		eventually(t, 2*time.Second, nd.Name()+" Updated event", func() bool {
			e, ok := nd.rec.find(Updated, "n0")
			return ok && e.Member.Meta.Transport == "transport-of-n0"
		})
	}
	if got := nodes[0].Self().Meta.Load; got != want {
		t.Errorf("Self load %+v, want %+v", got, want)
	}
	if err := nodes[2].SetZone("east"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 3*time.Second, "n0 to see n2's new zone", func() bool {
		return nodes[0].Members()[2].Meta.Zone == "east"
	})
}

func TestFailedNodeReportedLeft(t *testing.T) {
	nodes := cluster(t, 3, nil)
	t0 := time.Now()
	if err := nodes[2].Shutdown(); err != nil {
		t.Fatal(err)
	}
	for _, nd := range nodes[:2] {
		eventually(t, 5*time.Second, nd.Name()+" to report n2 failed", func() bool {
			e, ok := nd.rec.find(Left, "n2")
			return ok && e.Failed
		})
		t.Logf("%s noticed n2's failure after %v", nd.Name(), time.Since(t0).Round(10*time.Millisecond))
		if got := names(nd.Members()); got != "n0,n1" {
			t.Errorf("%s members %s after failure", nd.Name(), got)
		}
	}
}

func TestGracefulLeave(t *testing.T) {
	nodes := cluster(t, 3, nil)
	if err := nodes[1].Leave(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := nodes[1].Shutdown(); err != nil {
		t.Fatal(err)
	}
	for _, nd := range []*node{nodes[0], nodes[2]} {
		eventually(t, 3*time.Second, nd.Name()+" to report n1 left", func() bool {
			_, ok := nd.rec.find(Left, "n1")
			return ok
		})
		if e, _ := nd.rec.find(Left, "n1"); e.Failed {
			t.Errorf("%s: graceful leave reported as failure", nd.Name())
		}
	}
	if err := nodes[1].Leave(time.Second); !errors.Is(err, ErrClosed) {
		t.Errorf("Leave after Shutdown: %v", err)
	}
	if err := nodes[1].SetLoad(Load{}); !errors.Is(err, ErrClosed) {
		t.Errorf("SetLoad after Shutdown: %v", err)
	}
}

func TestWrongSeed(t *testing.T) {
	t0 := time.Now()
	_, err := tryStart(t, Config{Name: "lost", Join: []string{"127.0.0.1:1"}, JoinTimeout: 300 * time.Millisecond})
	if err == nil {
		t.Fatal("Start with an unreachable seed succeeded")
	}
	want := "join 127.0.0.1:1: no seed reachable (connection refused); check --join"
	if err.Error() != want || !errors.Is(err, ErrNoSeed) {
		t.Errorf("error %q, want %q", err, want)
	}
	// It gives up after its JoinTimeout, not never: the bound leaves room
	// for a loaded machine.
	if d := time.Since(t0); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestSeedOfAnotherProtocol: a seed that answers in another protocol (a
// node's task port given for its gossip port) is refused at once, saying
// which address a node prints for --join.
func TestSeedOfAnotherProtocol(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("TSYS hello, not gossip"))
			c.Close()
		}
	}()
	_, err = tryStart(t, Config{Name: "lost", Join: []string{ln.Addr().String()}, JoinTimeout: 5 * time.Second})
	if !errors.Is(err, ErrNotGossip) || !strings.Contains(err.Error(), "a node's task address") || !strings.Contains(err.Error(), "gossip HOST:PORT") {
		t.Errorf("joining a seed of another protocol: %v; want a refusal naming the task address and the gossip address", err)
	}
	// A keyed node (any node off loopback) hears the same answer as a
	// seed without a key, and says it may be either.
	_, err = tryStart(t, Config{Name: "lost-keyed", Key: bytes.Repeat([]byte{1}, 32), Join: []string{ln.Addr().String()}, JoinTimeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "not a gossip address") {
		t.Errorf("a keyed node joining a seed of another protocol: %v; want the gossip address named", err)
	}
}

// TestSeedThatAnswersHTTP: a seed that is an HTTP server (a node's --http
// address given for its gossip address) is refused at once, naming the
// mistake, by a node with a cluster key or without: one reads the
// answer's first byte, the other, which reads no byte of it, asks.
func TestSeedThatAnswersHTTP(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	seed := strings.TrimPrefix(srv.URL, "http://")
	for _, key := range [][]byte{nil, bytes.Repeat([]byte{1}, 32)} {
		t0 := time.Now()
		_, err := tryStart(t, Config{Name: "lost", Key: key, Join: []string{seed}, JoinTimeout: time.Minute})
		if !errors.Is(err, ErrNotGossip) || !strings.Contains(err.Error(), "--http address") || !strings.Contains(err.Error(), "gossip HOST:PORT") {
			t.Errorf("keyed %v: joining an HTTP server: %v; want a refusal naming the --http address and the gossip address", key != nil, err)
		}
		if d := time.Since(t0); d > 30*time.Second {
			t.Errorf("keyed %v: refused after %v: want it at once, not at the join timeout", key != nil, d)
		}
	}
}

// TestSeedThatDoesNotResolve: a seed whose host name does not resolve
// until the join timeout is a wrong name (ErrUnresolved), not a network
// that failed. The name is in .invalid, which never resolves (RFC 6761).
func TestSeedThatDoesNotResolve(t *testing.T) {
	_, err := tryStart(t, Config{Name: "lost", Join: []string{"no-such-node.invalid:7946"}, JoinTimeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrUnresolved) || !errors.Is(err, ErrNoSeed) || !strings.Contains(err.Error(), "check the host names in --join") {
		t.Errorf("joining a name that does not resolve: %v; want ErrUnresolved and ErrNoSeed, naming --join", err)
	}
	// One seed that resolves, and is down, is a network's failure.
	_, err = tryStart(t, Config{Name: "lost", Join: []string{"no-such-node.invalid:7946", "127.0.0.1:1"}, JoinTimeout: 300 * time.Millisecond})
	if errors.Is(err, ErrUnresolved) || !errors.Is(err, ErrNoSeed) {
		t.Errorf("joining a name that does not resolve and an address that refuses: %v; want ErrNoSeed alone", err)
	}
}

func TestPortInUse(t *testing.T) {
	a := start(t, Config{Name: "a"})
	_, err := tryStart(t, Config{Name: "b", Bind: a.Addr()})
	if err == nil {
		t.Fatal("second node bound the same port")
	}
	want := "bind " + a.Addr() + ": address already in use"
	if err.Error() != want || !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestVersionMismatchRefused(t *testing.T) {
	cur, next := uint8(ProtocolVersion), uint8(ProtocolVersion+1)
	a := start(t, Config{Name: "old"})
	_, err := tryStart(t, Config{Name: "new", Join: []string{a.Addr()}, Meta: Meta{Version: next}})
	if err == nil {
		t.Fatalf("a v%d node joined a v%d cluster", next, cur)
	}
	t.Logf("joiner's error: %v", err)
	if !errors.Is(err, ErrVersionMismatch) {
		t.Errorf("error does not wrap ErrVersionMismatch: %v", err)
	}
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Local != next || ve.Remote != cur || ve.Node != "old" {
		t.Errorf("VersionError %+v", ve)
	}
	for _, s := range []string{"join " + a.Addr(), fmt.Sprintf("this node speaks v%d", next), `node "old"`, fmt.Sprintf("speaks v%d", cur)} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if got := names(a.Members()); got != "old" {
		t.Errorf("the cluster's members: %s", got)
	}
	eventually(t, time.Second, "seed to log the refusal", func() bool {
		return strings.Contains(a.log.String(), "refusing node") && strings.Contains(a.log.String(), fmt.Sprintf("this node speaks v%d", cur))
	})
	t.Logf("seed's log: %s", strings.TrimSpace(a.log.String()))
}

func TestVersionCheckOnGossip(t *testing.T) {
	// The alive delegate alone (no join merge) must refuse a bad version.
	a := start(t, Config{Name: "a"})
	d := &delegate{m: a.Membership}
	bad, _ := Meta{Version: 9}.MarshalBinary()
	if err := d.NotifyAlive(fakeNode("x", bad)); !errors.Is(err, ErrVersionMismatch) {
		t.Errorf("NotifyAlive(v9) = %v", err)
	}
	if err := d.NotifyAlive(fakeNode("y", []byte("garbage"))); !errors.Is(err, ErrVersionMismatch) || !strings.Contains(err.Error(), "undecodable") {
		t.Errorf("NotifyAlive(garbage) = %v", err)
	}
	good, _ := Meta{Version: ProtocolVersion}.MarshalBinary()
	if err := d.NotifyAlive(fakeNode("z", good)); err != nil {
		t.Errorf("NotifyAlive(v1) = %v", err)
	}
}

func TestKeyMismatchRefused(t *testing.T) {
	key1 := bytes.Repeat([]byte{1}, 32)
	key2 := bytes.Repeat([]byte{2}, 16)
	a := start(t, Config{Name: "a", Key: key1})
	b := start(t, Config{Name: "b", Key: key1, Join: []string{a.Addr()}})
	eventually(t, 3*time.Second, "keyed pair to form", func() bool { return len(a.Members()) == 2 && len(b.Members()) == 2 })

	for _, c := range []struct {
		name string
		key  []byte
	}{{"nokey", nil}, {"wrongkey", key2}} {
		_, err := tryStart(t, Config{Name: c.name, Key: c.key, Join: []string{a.Addr()}, JoinTimeout: time.Second})
		if err == nil {
			t.Errorf("%s: joined a keyed cluster", c.name)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		if !errors.Is(err, ErrKeyMismatch) || !strings.HasPrefix(err.Error(), "join "+a.Addr()+": cluster key mismatch: ") {
			t.Errorf("%s: error does not wrap ErrKeyMismatch: %v", c.name, err)
		}
	}
	// And a keyed node cannot join a keyless cluster.
	open := start(t, Config{Name: "open"})
	_, err := tryStart(t, Config{Name: "keyed", Key: key1, Join: []string{open.Addr()}, JoinTimeout: time.Second})
	if !errors.Is(err, ErrKeyMismatch) || !strings.Contains(err.Error(), "this node has a cluster key and the seed has none") {
		t.Errorf("keyed node joining keyless seed: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := names(a.Members()); got != "a,b" {
		t.Errorf("members after refused joins: %s", got)
	}
}

func TestNameInUse(t *testing.T) {
	a := start(t, Config{Name: "same"})
	_, err := tryStart(t, Config{Name: "same", Join: []string{a.Addr()}})
	if !errors.Is(err, ErrNameInUse) {
		t.Fatalf("duplicate name: %v", err)
	}
	t.Logf("%v", err)
}

func TestConfigErrors(t *testing.T) {
	_, err := Start(Config{Bind: "0.0.0.0:0"}, nil)
	if !errors.Is(err, ErrNoKey) {
		t.Errorf("keyless non-loopback bind: %v", err)
	}
	_, err = Start(Config{Key: []byte("short")}, nil)
	if err == nil || !strings.Contains(err.Error(), "16, 24 or 32 bytes") {
		t.Errorf("bad key length: %v", err)
	}
	_, err = Start(Config{Bind: "127.0.0.1"}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "bind 127.0.0.1:") {
		t.Errorf("bind without port: %v", err)
	}
	_, err = Start(Config{Meta: Meta{Transport: strings.Repeat("x", 600)}}, nil)
	if !errors.Is(err, ErrMetaTooLarge) {
		t.Errorf("huge meta: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	m, err := Start(Config{Logger: newLogger(&syncBuf{}, slog.LevelWarn), Fast: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown()
	if m.Name() == "" || !strings.HasPrefix(m.Addr(), "127.0.0.1:") || strings.HasSuffix(m.Addr(), ":0") {
		t.Errorf("name %q addr %q", m.Name(), m.Addr())
	}
	if v := m.Self().Meta.Version; v != ProtocolVersion {
		t.Errorf("default version %d", v)
	}
	if err := m.SetTransport(strings.Repeat("y", 600)); !errors.Is(err, ErrMetaTooLarge) {
		t.Errorf("SetTransport too large: %v", err)
	}
	if got := m.Self().Meta.Transport; got != "" {
		t.Errorf("failed SetTransport changed meta to %q", got)
	}
}

// TestEventsMayCallBack checks that onEvent can call Members (no deadlock
// with memberlist's locks) and sees events in order.
func TestEventsMayCallBack(t *testing.T) {
	var a *Membership
	ready := make(chan struct{})
	var mu sync.Mutex
	var seen []string
	m, err := Start(Config{Name: "a", Fast: true, Logger: newLogger(&syncBuf{}, slog.LevelWarn)}, func(e Event) {
		<-ready
		n := len(a.Members())
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s %s %d", e.Kind, e.Member.Name, n))
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	a = m
	close(ready)
	defer a.Shutdown()
	b := start(t, Config{Name: "b", Join: []string{a.Addr()}})
	if err := b.SetLoad(Load{Ready: 5}); err != nil {
		t.Fatal(err)
	}
	_ = b.Leave(time.Second)
	eventually(t, 3*time.Second, "join, update and leave events", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) >= 3 && strings.HasPrefix(seen[len(seen)-1], "left b")
	})
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasPrefix(seen[0], "joined b") {
		t.Errorf("events %q", seen)
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	settle := func(limit int) int {
		n := runtime.NumGoroutine()
		for deadline := time.Now().Add(5 * time.Second); n > limit && time.Now().Before(deadline); n = runtime.NumGoroutine() {
			time.Sleep(50 * time.Millisecond)
		}
		return n
	}
	// Let earlier tests' goroutines finish: wait for a stable count.
	before := runtime.NumGoroutine()
	for same, deadline := 0, time.Now().Add(3*time.Second); same < 5 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		if n := runtime.NumGoroutine(); n == before {
			same++
		} else {
			before, same = n, 0
		}
	}
	for range 2 {
		var ms []*Membership
		for i := range 3 {
			cfg := Config{Name: fmt.Sprintf("g%d", i), Fast: true, Logger: newLogger(&syncBuf{}, slog.LevelWarn), Key: bytes.Repeat([]byte{7}, 16)}
			if i > 0 {
				cfg.Join = []string{ms[0].Addr()}
			}
			m, err := Start(cfg, func(Event) {})
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, m)
		}
		_ = ms[0].SetLoad(Load{Ready: 1})
		_ = ms[1].Leave(time.Second)
		for _, m := range ms {
			if err := m.Shutdown(); err != nil {
				t.Fatal(err)
			}
		}
		// A failed Start must not leak either.
		if _, err := Start(Config{Join: []string{"127.0.0.1:1"}, JoinTimeout: 100 * time.Millisecond, Logger: newLogger(&syncBuf{}, slog.LevelWarn)}, func(Event) {}); err == nil {
			t.Fatal("join to nowhere succeeded")
		}
	}
	if after := settle(before); after > before {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("goroutines: %d before, %d after Shutdown\n%s", before, after, buf[:n])
	}
}

// TestJoinRetriesUntilSeedUp starts a node before its seed: Start keeps
// retrying within JoinTimeout.
func TestJoinRetriesUntilSeedUp(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	seedAddr := l.Addr().String()
	l.Close()
	type result struct {
		n   *node
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := tryStart(t, Config{Name: "early", Join: []string{seedAddr}, JoinTimeout: 5 * time.Second})
		done <- result{n, err}
	}()
	time.Sleep(400 * time.Millisecond)
	seed := start(t, Config{Name: "seed", Bind: seedAddr})
	r := <-done
	if r.err != nil {
		t.Fatalf("early joiner: %v", r.err)
	}
	eventually(t, 3*time.Second, "seed to see the early node", func() bool { return names(seed.Members()) == "early,seed" })
}

// TestLANTiming runs the default (non-Fast) timing briefly: join, then a
// graceful leave.
func TestLANTiming(t *testing.T) {
	var rec recorder
	buf := &syncBuf{}
	a, err := Start(Config{Name: "a", Logger: newLogger(buf, slog.LevelWarn)}, rec.add)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown()
	b, err := Start(Config{Name: "b", Join: []string{a.Addr()}, Logger: newLogger(buf, slog.LevelWarn)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 3*time.Second, "a to see b", func() bool { return len(a.Members()) == 2 })
	t0 := time.Now()
	if err := b.Leave(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("Leave took %v", time.Since(t0).Round(time.Millisecond))
	b.Shutdown()
	eventually(t, 3*time.Second, "a to see b leave", func() bool {
		e, ok := rec.find(Left, "b")
		return ok && !e.Failed
	})
	if e, _ := rec.find(Updated, "b"); !e.Member.Leaving {
		t.Errorf("no Updated event with Leaving before the leave: %+v", e)
	}
}

// TestTiming checks that Timing reports what Start configures: Fast is
// quicker than the LAN profile, and the failure-detection options win
// over both.
func TestTiming(t *testing.T) {
	lan, fast := Config{}.Timing(), Config{Fast: true}.Timing()
	if lan.ProbeInterval <= 0 || lan.GossipInterval <= 0 || lan.GossipNodes <= 0 || lan.PushPullInterval <= 0 {
		t.Fatalf("LAN timing has a zero: %+v", lan)
	}
	if fast.ProbeInterval >= lan.ProbeInterval || fast.GossipInterval >= lan.GossipInterval {
		t.Errorf("Fast timing %+v is not quicker than LAN's %+v", fast, lan)
	}
	got := Config{Fast: true, ProbeInterval: 3 * time.Second, SuspicionMult: 7}.Timing()
	if got.ProbeInterval != 3*time.Second || got.SuspicionMult != 7 || got.ProbeTimeout > 3*time.Second/2 {
		t.Errorf("ProbeInterval 3s, SuspicionMult 7 gave %+v", got)
	}
}

// TestSameMetaIsNotGossiped: setting the load a node already reports
// queues no broadcast (an idle node reports the same load on every tick,
// and each broadcast wakes every peer), while a load that changes still
// does.
func TestSameMetaIsNotGossiped(t *testing.T) {
	nd := start(t, Config{Name: "n0"})
	idle := Load{Workers: 2}
	if err := nd.SetLoad(idle); err != nil {
		t.Fatal(err)
	}
	first := nd.changes.Load()
	if first != 1 {
		t.Fatalf("%d changes queued by the first load, want 1", first)
	}
	for range 50 {
		if err := nd.SetLoad(idle); err != nil {
			t.Fatal(err)
		}
	}
	if got := nd.changes.Load(); got != first {
		t.Errorf("%d changes queued after setting the same load 50 times, want %d", got, first)
	}
	if err := nd.SetLoad(Load{Workers: 2, Ready: 3}); err != nil {
		t.Fatal(err)
	}
	if got := nd.changes.Load(); got != first+1 {
		t.Errorf("%d changes queued after a new load, want %d", got, first+1)
	}
}
