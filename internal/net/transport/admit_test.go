package transport

import (
	"net"
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
