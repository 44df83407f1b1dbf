package transport

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// helloHint says what a failure to read a peer's Hello most likely
// means, for the person who gave the address. A tsys node answers a
// Hello or says why not, and another kind of port hangs up, often with a
// reset (a socket closed with our Hello unread resets). But a node that
// a stranger floods resets the connections past its budget too, and
// holds others parked until its handshakes with the same address end: so
// a reset or a wait that runs out names both causes, and only a clean
// hang-up or what is not a tsys frame is called another kind of port.
func helloHint(err error, wait time.Duration) string {
	var ne net.Error
	var magic badMagic
	switch {
	case errors.As(err, &magic) && magic.http():
		return "it answers HTTP: is it a node's --http address? give the node's task address, the \"tasks HOST:PORT\" its banner prints"
	case errors.Is(err, syscall.ECONNRESET):
		return "the peer reset the connection before its Hello: a node does so when its handshakes from this address are all taken, by too many in its handshake (is a stranger holding connections to it from this host?), and so does a port of another kind: is it a tsys task address? a node prints its \"tasks HOST:PORT\" when it starts"
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("no Hello within %v: the node is overloaded, or holds connections from this address while others from it finish their handshakes (is a stranger holding connections to it from this host?), or it is not a tsys task address", wait)
	case errors.Is(err, io.EOF) || errors.Is(err, ErrProtocol):
		return "is it a tsys task address? a node prints its \"tasks HOST:PORT\" when it starts; its gossip address is another"
	}
	return "is it a tsys task address? a node prints its \"tasks HOST:PORT\" when it starts"
}
