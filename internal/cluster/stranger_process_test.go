package cluster_test

import (
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/net/transport"
)

// trap listens where a stranger tells a node to reply and counts who
// connects.
type trap struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []string
}

func newTrap(t *testing.T) *trap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &trap{ln: ln}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			tr.mu.Lock()
			tr.conns = append(tr.conns, nc.RemoteAddr().String())
			tr.mu.Unlock()
			nc.Close()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	return tr
}

func (tr *trap) connected() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.conns...)
}

// TestProcessStrangerChoosesNoConnection: a stranger that forges a
// keyless Hello (it needs no key) and then every request that names a
// reply address, naming a port it listens on (as an IP address, and as
// "localhost", a name to resolve), gets its answers back on its own
// connection, and the node process opens no connection to that port: it
// dials only addresses its membership or its command line gave it.
func TestProcessStrangerChoosesNoConnection(t *testing.T) {
	c := newProcs(t)
	n := c.node()
	trap := newTrap(t)
	_, port, _ := net.SplitHostPort(trap.ln.Addr().String())
	for _, replyTo := range []string{trap.ln.Addr().String(), net.JoinHostPort("localhost", port)} {
		answered := make(chan struct{}, 1)
		st, err := transport.Listen(transport.Config{Name: "stranger", Logger: slog.New(slog.DiscardHandler)},
			func(_ string, tm *transport.Message) {
				if cluster.IsStatsReply(tm) {
					select {
					case answered <- struct{}{}:
					default:
					}
				}
			})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		for _, m := range cluster.ForgedRequests(replyTo) {
			if err := st.SendSync(n.Tasks, m); err != nil {
				t.Fatalf("forged %v: %v", m.Type, err)
			}
		}
		// The node handles one connection's messages in order: the
		// answer to the last tells it has handled them all. What it
		// sends it queues at once; a dial it might have queued gets a
		// bounded moment more to arrive.
		got := false
		for deadline := time.Now().Add(condWait); !got && len(trap.connected()) == 0 && time.Now().Before(deadline); {
			select {
			case <-answered:
				got = true
				waitQuiet(trap)
			case <-time.After(10 * time.Millisecond):
			}
		}
		if c := trap.connected(); len(c) > 0 {
			t.Fatalf("the node connected to %s, an address only a forged message named, from %v\nnode log:\n%s", replyTo, c, n.Stderr)
		}
		if !got {
			t.Fatalf("no answer to the forged state request naming %s on the stranger's connection\nnode log:\n%s", replyTo, n.Stderr)
		}
		st.Close()
	}
}

// waitQuiet waits a bounded while for a connection to the trap.
func waitQuiet(tr *trap) {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline) && len(tr.connected()) == 0; {
		time.Sleep(10 * time.Millisecond)
	}
}
