package transport

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/stranger"
)

// TestStrangerOnPeersAddress: a stranger holding 300 idle connections
// from 127.0.0.1, the address the peers dial from, reopening each as it
// closes, does not keep fresh peers from that address out, keyed or
// keyless: each of 5 gets its message through, with a dial's own
// handshake timeout to spare.
func TestStrangerOnPeersAddress(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  []byte
	}{{"keyed", key1}, {"keyless", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			defaults := func(c *Config) { c.HandshakeTimeout = DefaultHandshakeTimeout }
			b := start(t, "b", tc.key, defaults)
			s := stranger.StartFrom(t, net.IPv4(127, 0, 0, 1), b.Addr(), 300)
			// Past a handshake timeout, the stranger's first connections
			// have been closed and reopened, and its others wait parked.
			siege := time.Now()
			deadline := siege.Add(30 * time.Second)
			for st := b.Stats(); st.OverBudgetConns+st.RejectedConns < perSourceHandshakes || time.Since(siege) < 3*DefaultHandshakeTimeout/2; st = b.Stats() {
				if time.Now().After(deadline) {
					t.Fatalf("the stranger never filled its share: %+v", st)
				}
				time.Sleep(10 * time.Millisecond)
			}
			for range 5 {
				servesGoodPeer(t, b, tc.key)
			}
			s.Stop()
			t.Logf("the stranger dialled %d times; b: %+v", s.Dials(), b.Stats())
		})
	}
}

// TestForgedHellosKeepNoPeerOut: with a key, connections from the peers'
// address that send a well-formed Hello (which needs no key) and then
// stall where the Auth should come hold their slots no longer than idle
// ones do: fresh peers from that address get through.
func TestForgedHellosKeepNoPeerOut(t *testing.T) {
	b := start(t, "b", key1, func(c *Config) { c.HandshakeTimeout = DefaultHandshakeTimeout })
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var held []net.Conn
	for range 4 * perSourceHandshakes {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				nc, err := net.Dial("tcp", b.Addr())
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				mu.Lock()
				held = append(held, nc)
				mu.Unlock()
				nonce := make([]byte, nonceLen)
				nonce[0] = 1
				h := hello{version: ProtocolVersion, flags: helloKeyed, name: "a", nonce: nonce}
				writeSingle(nc, msgHello, h.encode())
				io.Copy(io.Discard, nc) // stall until the node hangs up
				nc.Close()
			}
		})
	}
	t.Cleanup(func() {
		close(stop)
		mu.Lock()
		for _, nc := range held {
			nc.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	waitFor(t, "the forged Hellos to fill the address's share", func() bool { return b.Stats().RejectedConns >= perSourceHandshakes })
	for range 5 {
		began := time.Now()
		servesGoodPeer(t, b, key1)
		t.Logf("a fresh peer got through in %v", time.Since(began).Round(time.Millisecond))
	}
	t.Logf("b: %+v", b.Stats())
}

// TestDialRefusedByBudget: a dial that the peer resets before its Hello,
// as a node whose handshakes from the dialler's address are all taken
// does, says so, not only that the address may be another kind of port.
func TestDialRefusedByBudget(t *testing.T) {
	addr := fakePeer(t, func(nc net.Conn) {
		nc.Read(make([]byte, 1)) // the dialler's Hello has come
		nc.(*net.TCPConn).SetLinger(0)
	})
	a := start(t, "a", nil)
	err := a.SendSync(addr, testMessage{Type: tPing}.msg())
	if err == nil || !strings.Contains(err.Error(), "handshakes from this address are all taken") {
		t.Errorf("a send to a peer that resets the connection: %v; want the hint about its budget", err)
	}
}
