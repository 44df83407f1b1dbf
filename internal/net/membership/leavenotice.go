package membership

import (
	"net"
	"strconv"
	"time"

	"github.com/hashicorp/memberlist"
)

// A leave told to each member. Gossip alone does not make a graceful leave
// known as one: memberlist hands an update to RetransmitMult x
// log10(members+1) members (two with the fast timing, of any cluster
// under ten), the others hear it from them, and its leave message, sent
// next, races the mark there. A member that hears the leave first holds
// the node dead: it reports Failed, and asks the gone node to join again
// for minutes (reconnect.go). The clients of back-to-back jobs leave a
// few times a second. So Leave also tells every live member directly,
// over memberlist's stream (TCP, under the cluster key), before it
// gossips the leave: the member records the mark (heardLeaving), and a
// Left that follows is graceful, whatever gossip brought first. A word
// that does not arrive leaves the gossiped mark to do the work.

// noticeLeaving is the second byte of a leave notice (the first is
// metaMagic); the leaving node's name follows.
const noticeLeaving = 1

// leaveNotice is the user message that tells a member name leaves.
func leaveNotice(name string) []byte {
	return append([]byte{metaMagic, noticeLeaving}, name...)
}

// readLeaveNotice returns the name a leave notice carries; ok is false for
// any other message.
func readLeaveNotice(b []byte) (name string, ok bool) {
	if len(b) < 3 || b[0] != metaMagic || b[1] != noticeLeaving {
		return "", false
	}
	return string(b[2:]), true
}

// tellLeaving sends the leave notice to every live member at once and
// waits for the sends, up to timeout (0: until each has ended, which
// memberlist's TCPTimeout bounds). A send still under way when it returns
// ends within that bound on its own.
func (m *Membership) tellLeaving(timeout time.Duration) {
	m.mu.Lock()
	to := make([]*memberlist.Node, 0, len(m.peers))
	for _, p := range m.peers {
		if n, ok := gossipNode(p); ok {
			to = append(to, n)
		}
	}
	m.mu.Unlock()
	msg := leaveNotice(m.name)
	sent := make(chan struct{}, len(to))
	for _, n := range to {
		go func() {
			if err := m.ml.SendReliable(n, msg); err != nil {
				m.log.Debug("membership: a member was not told this node leaves; gossip will tell it", "node", n.Name, "err", err)
			}
			sent <- struct{}{}
		}()
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	for range to {
		select {
		case <-sent:
		case <-expired:
			return
		}
	}
}

// gossipNode is the address memberlist sends p's user messages to: its
// name and gossip address, copied (memberlist's own nodes change under
// it).
func gossipNode(p Member) (*memberlist.Node, bool) {
	host, port, err := net.SplitHostPort(p.Gossip)
	if err != nil {
		return nil, false
	}
	ip := net.ParseIP(host)
	pn, err := strconv.ParseUint(port, 10, 16)
	if ip == nil || err != nil {
		return nil, false
	}
	return &memberlist.Node{Name: p.Name, Addr: ip, Port: uint16(pn)}, true
}

// heardLeaving records that member name said it leaves, and reports it as
// Updated with Leaving, unless it had said so or is gone already. The mark
// stands until the member is gone (event).
func (m *Membership) heardLeaving(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.peers[name]
	if !ok || p.Leaving {
		return
	}
	p.Leaving = true
	m.peers[name] = p
	// Pushed under m.mu, as event pushes: the queue's order is the
	// order of the changes to peers.
	m.events.push(Event{Kind: Updated, Member: p})
}
