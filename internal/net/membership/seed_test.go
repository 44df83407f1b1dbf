package membership

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// TestSeedWithoutPort: a seed given without a port is dialled on
// DefaultPort, never on this node's own gossip port, which memberlist
// would pick and which, for a node bound to port 0, only this node
// listens on.
func TestSeedWithoutPort(t *testing.T) {
	for in, want := range map[string]string{
		"10.0.0.1":       "10.0.0.1:7946",
		"10.0.0.1:9000":  "10.0.0.1:9000",
		"node-a":         "node-a:7946",
		"::1":            "[::1]:7946",
		"[::1]":          "[::1]:7946",
		"[::1]:9000":     "[::1]:9000",
		"localhost:7947": "localhost:7947",
	} {
		if got := seedAddr(in); got != want {
			t.Errorf("seedAddr(%q) = %q, want %q", in, got, want)
		}
	}
	// A port-less seed is the default gossip port, never this node's own:
	// joining itself, Start would succeed alone.
	n, err := tryStart(t, Config{Name: "portless", Join: []string{"127.0.0.1"}, JoinTimeout: 300 * time.Millisecond})
	if err == nil && len(n.Members()) < 2 {
		t.Fatalf("--join 127.0.0.1 joined only this node (%s): it dialled its own port", names(n.Members()))
	}
	if err != nil && errors.Is(err, ErrSelfJoin) {
		t.Fatalf("--join 127.0.0.1 dialled this node's own port: %v", err)
	}
}

// TestSelfJoinRefused: a node told to join its own gossip address says so
// at once, rather than waiting for peers that never come.
func TestSelfJoinRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	own := l.Addr().String()
	l.Close()
	_, err = tryStart(t, Config{Name: "narcissus", Bind: own, Join: []string{own}, JoinTimeout: 30 * time.Second})
	if err == nil || !errors.Is(err, ErrSelfJoin) || !strings.Contains(err.Error(), own) || !strings.Contains(err.Error(), "another node") {
		t.Fatalf("joining its own address %s: %v; want ErrSelfJoin naming the address and what to give instead", own, err)
	}
}
