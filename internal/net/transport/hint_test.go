package transport

import (
	"net"
	"strings"
	"testing"
)

// TestResetIsNotCalledAnotherKindOfPort: a node that resets a connection
// before its Hello, as a node flooded by a stranger does to those past
// its budget, is not taken only for another kind of port: the error says
// that a node over its budget resets too.
func TestResetIsNotCalledAnotherKindOfPort(t *testing.T) {
	addr := fakePeer(t, func(nc net.Conn) {
		// after the Hello, so that the reset meets the dialler's read,
		// not its write
		nc.Read(make([]byte, 64))
		nc.(*net.TCPConn).SetLinger(0)
	})
	a := start(t, "a", nil)
	err := a.SendSync(addr, testMessage{Type: tPing}.msg())
	if err == nil {
		t.Fatal("a send to a port that resets succeeded")
	}
	if !strings.Contains(err.Error(), "too many in its handshake (is a stranger holding connections") {
		t.Fatalf("a send to a port that resets: %v; want the reset explained as a node over its budget may cause it", err)
	}
}

// TestAcceptorGivesNoDiallersHint: a node that refuses a stranger's
// garbage does not log the hint meant for whoever gave a dialler a wrong
// address, which on a flooded node's log reads as if its own port were
// not a tsys task address.
func TestAcceptorGivesNoDiallersHint(t *testing.T) {
	n := start(t, "n", nil)
	nc, _ := rawConn(t, n)
	nc.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
	n.log.waitLog(t, "transport: refused connection")
	if s := n.log.String(); strings.Contains(s, "is it a tsys task address?") {
		t.Fatalf("the acceptor's refusal gives the dialler's hint:\n%s", s)
	}
}
