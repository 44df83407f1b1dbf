package transport

import (
	"encoding/binary"
	"net"
)

// sockState is what a look at a socket's receive side, without reading,
// tells of a connection not yet read (probe).
type sockState int

const (
	sockEmpty   sockState = iota // nothing has arrived (or it cannot tell)
	sockWaiting                  // bytes have arrived, unread, that do not start a Hello
	sockHello                    // bytes have arrived, unread, that start a Hello frame
	sockGone                     // the peer has hung up (or reset), nothing unread
)

// arrived classifies b, the first bytes waiting on a connection: a
// Hello's frame (as far as b goes: magic, this version, no flags, a
// length a handshake frame may have) or anything else. A stranger's
// garbage is rarely shaped so; a peer's first bytes always are.
func arrived(b []byte) sockState {
	var h [headerLen]byte
	copy(h[:], frameMagic)
	h[4] = ProtocolVersion
	n := min(len(b), 6)
	if string(b[:n]) != string(h[:n]) {
		return sockWaiting
	}
	if len(b) >= headerLen && binary.BigEndian.Uint32(b[6:headerLen]) > handshakeMaxLen {
		return sockWaiting
	}
	return sockHello
}

// bytesWaiting reports whether bytes of nc have arrived that nobody has
// read.
func bytesWaiting(nc net.Conn) bool {
	st := probe(nc)
	return st == sockWaiting || st == sockHello
}
