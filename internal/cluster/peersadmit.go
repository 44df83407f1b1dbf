package cluster

import (
	"net"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Member answers the transport's question before a connection's
// handshake (transport.Members): is name a member that gossip knows, whose
// gossiped task address is on host ip? Its connection is then admitted
// ahead of strangers'. Only gossip's word counts, not an address a message
// brought (learn), which a stranger can send; and a gossiped host name is
// not resolved (no DNS lookup on the accept path), so such a member is
// admitted by its handshake's progress alone, as any connection is.
func (b *peerBook) Member(name string, ip net.IP) bool {
	id := clusterpolicy.NodeID(name)
	if id == b.self {
		return false
	}
	m, ok := b.meta(id)
	if !ok {
		return false
	}
	host, _, err := net.SplitHostPort(m.Transport)
	if err != nil {
		return false
	}
	at := net.ParseIP(host)
	return at != nil && at.Equal(ip)
}
