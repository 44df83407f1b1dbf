package transport

import (
	"bytes"
	"net"
)

// Members is what the transport asks the cluster's membership (gossip)
// before a connection has proved anything: whether a connection that
// says it comes from a member does come from where that member lives.
// The budget admits such a connection ahead of unknown ones, so that a
// stranger holding connections from a member's address (a one-machine
// cluster's 127.0.0.1, a NAT) never has the member's wait behind its own.
//
// It is a preference, not a proof: the name and the address are what a
// stranger on the member's host could send too, so a connection admitted
// this way still runs the whole handshake, and with a key is refused at
// the Auth like any other. What it keeps from a stranger on another
// address is the slot of a member's connection.
//
// Concurrency: Member is called from the transport's accept loop with the
// budget's lock held, concurrently with gossip's updates. It must be safe
// for concurrent use, answer from what the membership already knows (no
// I/O, no waiting on gossip), and never call the Transport.
type Members interface {
	// Member reports whether a current member is named name and has
	// gossiped a task address on host ip.
	Member(name string, ip net.IP) bool
}

// memberHello reports whether the bytes waiting on nc, unread, are a
// whole Hello whose name Members knows at nc's remote address.
func memberHello(m Members, nc net.Conn) bool {
	if probe(nc) != sockHello { // a look at the header, before a read of a frame
		return false
	}
	b := peekFrame(nc, headerLen+handshakeMaxLen)
	if len(b) < headerLen {
		return false
	}
	var scratch frameScratch
	p, _, err := readFrame(bytes.NewReader(b), handshakeMaxLen, &scratch, nil)
	if err != nil {
		return false
	}
	msg, n, err := DecodeMessage(p)
	if err != nil || n != len(p) || msg.Type != msgHello {
		return false
	}
	h, err := decodeHello(msg.Body)
	if err != nil || h.version != ProtocolVersion {
		return false
	}
	ta, ok := nc.RemoteAddr().(*net.TCPAddr)
	return ok && m.Member(h.name, ta.IP)
}
