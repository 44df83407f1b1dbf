package transport

import (
	"errors"
	"testing"
)

// TestReplyOnTheConnection: a reply sent to ReplyAddr reaches the asker
// on the connection its request came on, keyed and keyless, in order,
// without the replier dialling anything; once that connection is gone a
// send to the route fails with ErrNoRoute instead of dialling.
func TestReplyOnTheConnection(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  []byte
	}{{"keyless", nil}, {"keyed", key1}} {
		t.Run(tc.name, func(t *testing.T) {
			a := start(t, "a", tc.key)
			b := start(t, "b", tc.key)
			routes := make(chan string, 1)
			b.in.react(func(from string, m *Message) {
				to := b.ReplyAddr(m)
				if !IsReplyAddr(to) {
					t.Errorf("ReplyAddr = %q, not a route", to)
				}
				select {
				case routes <- to:
				default:
				}
				q := readTest(m)
				if err := b.Send(to, testMessage{Type: tReply, ID: q.ID}.msg()); err != nil {
					t.Errorf("reply: %v", err)
				}
			})
			const n = 20
			for i := range n {
				if err := a.Send(b.Addr(), testMessage{Type: tRequest, ID: uint64(i)}.msg()); err != nil {
					t.Fatal(err)
				}
			}
			a.in.wait(t, n)
			for i := range n {
				if from, m := a.in.get(i); from != "b" || m.Type != tReply || m.ID != uint64(i) {
					t.Fatalf("reply %d: from %q %+v", i, from, m)
				}
			}
			if s := b.Stats(); s.DialFailures != 0 || outbound(b) != 0 {
				t.Fatalf("b dialled: %d outbound connections, stats %+v", outbound(b), s)
			}
			route := <-routes
			// a drops its connection: the route dies with it.
			a.Close()
			waitFor(t, "the route to close", func() bool {
				return errors.Is(b.SendSync(route, testMessage{Type: tReply}.msg()), ErrNoRoute)
			})
			if s := b.Stats(); s.DialFailures != 0 || outbound(b) != 0 {
				t.Fatalf("b dialled after the route closed: %+v", s)
			}
		})
	}
}

// TestReplyAddrOfUnreceived: a message the node made itself has no
// route, and a route that was never given is refused, not dialled.
func TestReplyAddrOfUnreceived(t *testing.T) {
	a := start(t, "a", nil)
	if got := a.ReplyAddr(testMessage{Type: tPing}.msg()); got != "" {
		t.Fatalf("ReplyAddr of a message not received = %q", got)
	}
	if err := a.Send(routePrefix+"99", testMessage{Type: tPing}.msg()); !errors.Is(err, ErrNoRoute) {
		t.Fatalf("Send to a route never given: %v, want ErrNoRoute", err)
	}
	for _, s := range []string{"@conn/", "@conn/0", "@conn/x", "conn/1", "127.0.0.1:1"} {
		if IsReplyAddr(s) {
			t.Errorf("IsReplyAddr(%q) = true", s)
		}
	}
}

// outbound is how many connections n has dialled and holds.
func outbound(n *node) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.out)
}
