package membership

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// A peer declared dead is asked to join again, at its gossiped address,
// for reconnectFor; one that joined or left gracefully is not.
func TestLostPeersAreTriedForAWhile(t *testing.T) {
	var l lostPeers
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	dead := func(name, addr string) Event {
		return Event{Kind: Left, Failed: true, Member: Member{Name: name, Gossip: addr}}
	}
	l.note(dead("a", "10.0.0.1:7946"), t0)
	l.note(dead("b", "10.0.0.2:7946"), t0.Add(time.Minute))
	l.note(dead("c", "10.0.0.3:7946"), t0)
	l.note(Event{Kind: Joined, Member: Member{Name: "c"}}, t0)
	l.note(dead("d", "10.0.0.4:7946"), t0)
	l.note(Event{Kind: Left, Member: Member{Name: "d"}}, t0) // left gracefully after all
	l.note(Event{Kind: Left, Member: Member{Name: "e", Gossip: "10.0.0.5:7946"}}, t0)
	if got := sorted(l.due(t0.Add(time.Second))); got != "10.0.0.1:7946,10.0.0.2:7946" {
		t.Errorf("due: %s, want a's and b's addresses", got)
	}
	if got := sorted(l.due(t0.Add(reconnectFor + 30*time.Second))); got != "10.0.0.2:7946" {
		t.Errorf("due after reconnectFor: %s, want only b's, lost later", got)
	}
	if got := sorted(l.due(t0.Add(reconnectFor + 2*time.Minute))); got != "" {
		t.Errorf("due long after: %s, want none", got)
	}
}

func sorted(addrs []string) string {
	for i := range addrs {
		for j := i + 1; j < len(addrs); j++ {
			if addrs[j] < addrs[i] {
				addrs[i], addrs[j] = addrs[j], addrs[i]
			}
		}
	}
	s := ""
	for i, a := range addrs {
		if i > 0 {
			s += ","
		}
		s += a
	}
	return s
}

// TestRejoinsAPeerDeclaredDead: n1 stops answering and n0 declares it
// dead; past memberlist's own gossip to the dead, n1 answers again (a
// node of that name and address, with no seed to join, as a partitioned
// node that holds its seed dead has none). n0 asks it to join, and each
// is a member of the other's cluster again; without that they stay two
// clusters of one for good.
func TestRejoinsAPeerDeclaredDead(t *testing.T) {
	nodes := cluster(t, 2, nil)
	addr := nodes[1].Addr()
	if err := nodes[1].Shutdown(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "n0 to declare n1 dead", func() bool {
		e, ok := nodes[0].rec.find(Left, "n1")
		return ok && e.Failed
	})
	// memberlist goes on gossiping to a dead node for
	// GossipToTheDeadTime (2 s on the fast timing): past it, only the
	// reconnect can bring n1 back. A wait for memberlist's own timer,
	// not a timed assertion.
	time.Sleep(3 * time.Second)
	back := start(t, Config{Name: "n1", Bind: addr})
	eventually(t, 3*time.Second, "n0 and n1 to see each other again", func() bool {
		return names(nodes[0].Members()) == "n0,n1" && names(back.Members()) == "n0,n1"
	})
}

// TestShutdownDoesNotWaitForAReconnect: a lost peer still cut off holds
// the reconnect's join until memberlist's TCPTimeout (here, a listener
// that accepts and says nothing); Shutdown returns without waiting for
// it, the connection still open. Before, a client's exit waited out the
// join.
func TestShutdownDoesNotWaitForAReconnect(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	n := start(t, Config{Name: "a"})
	n.lost.note(Event{Kind: Left, Failed: true, Member: Member{Name: "ghost", Gossip: silent.Addr().String()}}, time.Now())
	var c net.Conn
	select {
	case c = <-accepted:
		defer c.Close()
	case <-time.After(30 * time.Second):
		t.Fatal("no reconnect to the lost peer within 30 s")
	}
	if err := n.Shutdown(); err != nil {
		t.Fatal(err)
	}
	// Still open: what the join sent is there to read, then no end of
	// it (the read's deadline passes) rather than the end a join that
	// gave up makes (EOF). The fast timing's join gives up 2 s after it
	// began.
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	_, err = io.Copy(io.Discard, c)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the join's connection, as Shutdown returned: %v; want it still open: Shutdown waited for the join to give up", err)
	}
}

// The reconnector waits on added, with no timer, while no peer is lost:
// a lost peer gives it a value, a join or a graceful leave does not.
func TestLostPeerWakesTheReconnector(t *testing.T) {
	l := lostPeers{added: make(chan struct{}, 1)}
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	l.note(Event{Kind: Joined, Member: Member{Name: "a", Gossip: "10.0.0.1:7946"}}, t0)
	l.note(Event{Kind: Left, Member: Member{Name: "b", Gossip: "10.0.0.2:7946"}}, t0)
	if l.any() || len(l.added) != 0 {
		t.Fatalf("after a join and a graceful leave: any %v, %d wake-ups; want none", l.any(), len(l.added))
	}
	l.note(Event{Kind: Left, Failed: true, Member: Member{Name: "c", Gossip: "10.0.0.3:7946"}}, t0)
	l.note(Event{Kind: Left, Failed: true, Member: Member{Name: "d", Gossip: "10.0.0.4:7946"}}, t0)
	if !l.any() || len(l.added) != 1 {
		t.Fatalf("after two peers lost: any %v, %d wake-ups; want one", l.any(), len(l.added))
	}
}
