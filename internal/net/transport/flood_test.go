package transport

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// garbagePeer listens on loopback and answers every connection with
// bytes that are not a tsys frame: a port of another kind, or a stranger
// that gossip named.
func garbagePeer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			nc.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
			nc.Close()
		}
	}()
	return ln.Addr().String()
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestFloodOfEveryKindLogsBounded: a stranger causes every kind of line
// it can, rounds times each: garbage before the handshake, a bad frame
// after a keyless one, a connection reset after one, and, for addresses
// gossip may bring, a dial to a closed port and to one that answers
// garbage. On the buckets' injected clock, standing still, each kind logs
// its burst and no more; a second later one more line of each says how
// many it held back. The refusals are one kind among them, on the same
// clock.
func TestFloodOfEveryKindLogsBounded(t *testing.T) {
	const rounds = 30
	var clock atomic.Int64
	clock.Store(time.Unix(1000, 0).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	n := start(t, "n", nil, func(c *Config) { c.now = now })
	closed, garbage := closedPort(t), garbagePeer(t)
	ping := frameBytes(false, testMessage{Type: tPing}.msg())

	round := func() {
		nc, _ := rawConn(t, n)
		nc.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
		bad := handshaken(t, n)
		bad.Write(ping)
		bad.Write([]byte("\x00\x01garbage and more garbage"))
		reset := handshaken(t, n)
		reset.Write(ping)
		reset.(*net.TCPConn).SetLinger(0)
		reset.Close()
		if err := n.SendSync(closed, testMessage{Type: tPing}.msg()); err == nil {
			t.Fatal("a send to a closed port succeeded")
		}
		if err := n.SendSync(garbage, testMessage{Type: tPing}.msg()); err == nil {
			t.Fatal("a send to a garbage port succeeded")
		}
	}
	settle := func(r int) {
		waitFor(t, fmt.Sprintf("%d rounds handled", r), func() bool {
			s := n.Stats()
			n.mu.Lock()
			open := len(n.conns)
			n.mu.Unlock()
			return s.RejectedConns == uint64(r) && s.ProtocolErrors == uint64(r) && s.DialFailures == uint64(2*r) && open == 0
		})
	}
	for range rounds {
		round()
	}
	settle(rounds)
	kinds := []string{
		"transport: closing connection: bad data from peer",
		"transport: connection lost",
		"transport: dial failed",
		"transport: connection refused by handshake",
		refusalKind,
	}
	count := func(kind string) int { return strings.Count(n.log.String(), fmt.Sprintf("msg=%q", kind)) }
	for _, k := range kinds {
		if got := count(k); got != logBurst {
			t.Errorf("%d rounds of %q logged %d lines on a clock standing still, want the burst, %d", rounds, k, got, logBurst)
		}
	}
	clock.Add(int64(time.Second))
	round()
	settle(rounds + 1)
	for _, k := range kinds {
		if got := count(k); got != logBurst+1 {
			t.Errorf("%q logged %d lines a second later, want %d", k, got, logBurst+1)
		}
		held := regexp.MustCompile(regexp.QuoteMeta(fmt.Sprintf("msg=%q", k)) + `.* not_logged=(\d+)`)
		lines := strings.Split(n.log.String(), "\n")
		last := ""
		for _, l := range lines {
			if held.MatchString(l) {
				last = l
			}
		}
		if want := fmt.Sprintf("not_logged=%d", rounds-logBurst); !strings.Contains(last, want) {
			t.Errorf("the last line of %q does not say %s: %s", k, want, last)
		}
	}
	if t.Failed() {
		return
	}
	servesGoodPeer(t, n, nil)
}
