package transport

import (
	"errors"
	"os"
	"syscall"
)

// helloHint is what a dialler adds to an error reading the peer's Hello.
// A tsys node answers a connection with its Hello, or says why not; one
// that resets the connection first, or says nothing, is most often
// another kind of port, but may also be a node whose handshakes from
// this address are all taken (by other connections from this host: see
// the package documentation, "Strangers"), which the root's message about
// a node that cannot take part in a job should say.
func helloHint(err error) string {
	const task = `is it a tsys task address? a node prints its "tasks HOST:PORT" when it starts; its gossip address is another`
	switch {
	case errors.Is(err, syscall.ECONNRESET):
		return "(" + task + "; or the node's handshakes from this address are all taken, by other connections from this host)"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "(" + task + "; or the node is busy with other connections from this address)"
	}
	return "(" + task + ")"
}
