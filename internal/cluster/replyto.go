package cluster

import (
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/transport"
)

// A message's ReplyTo is its sender's word for where to answer it, and a
// keyless sender's word is anyone's: a stranger who forged a Hello could
// name any address, or a host name for this node to look up in DNS, and
// make the node connect there and introduce itself. So a node dials only
// addresses it learned from its own membership (gossip) or its own
// command line: the reply address of every received message is replaced,
// before anything reads it, by the sender's gossiped transport address if
// gossip knows the sender, and otherwise by the route back on the
// connection the message came on (transport.ReplyAddr), which is never
// dialled. A peer gossip has not brought yet (a job's start or a steal
// request often beats gossip) and a command that asks without joining
// (tsys jobs, tsys drain) are answered on their own connection.
//
// A keyless sender's name is its word too: one that takes a member's name
// gets that member's answers sent to that member's gossiped address, not
// to an address of its choosing.

// replyAddressed is a message that carries its sender's reply address
// (messages.go: each that has a ReplyTo field).
type replyAddressed interface {
	message
	replyAddr() *string
}

// trustReplyTo replaces the reply address msg, received from peer as tm,
// names by one this node may dial or send to (see above).
func (in inbox) trustReplyTo(peer clusterpolicy.NodeID, msg message, tm *transport.Message) {
	r, ok := msg.(replyAddressed)
	if !ok {
		return
	}
	p := r.replyAddr()
	if meta, ok := in.n.peers.meta(peer); ok && meta.Transport != "" {
		*p = meta.Transport
		return
	}
	*p = in.n.tr.ReplyAddr(tm)
}
