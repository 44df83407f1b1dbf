package transport

import (
	"net"
	"strings"
	"testing"
)

// TestResetIsNotCalledAnotherKindOfPort: a node that resets a connection
// before its Hello, as a node flooded by a stranger does to those past
// its budget, is not taken for another kind of port: the error says what
// a reset means, while a port that hangs up in silence keeps the hint
// about the task address (TestDialAnotherKindOfPort).
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
	if strings.Contains(err.Error(), "is it a tsys task address?") || !strings.Contains(err.Error(), "reset the connection before its Hello") {
		t.Fatalf("a send to a port that resets: %v; want the reset explained, not the task-address hint", err)
	}
}
