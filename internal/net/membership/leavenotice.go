package membership

import (
	"encoding/binary"
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
//
// A client whose job was short can leave before gossip has brought it to
// every member: the member it tells does not know it yet. Such a word is
// kept for earlyFor (earlyLeaves), and the node is leaving from the
// moment gossip brings it, if it brings it from the same gossip address.

// noticeLeaving is the second byte of a leave notice (the first is
// metaMagic); the leaving node's name and gossip address follow, each
// after its length (uvarint).
const noticeLeaving = 1

// leaveNotice is the user message that tells a member the node name, at
// gossip address gossip, leaves.
func leaveNotice(name, gossip string) []byte {
	b := []byte{metaMagic, noticeLeaving}
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	b = binary.AppendUvarint(b, uint64(len(gossip)))
	return append(b, gossip...)
}

// readLeaveNotice returns the name and gossip address a leave notice
// carries; ok is false for any other message.
func readLeaveNotice(b []byte) (name, gossip string, ok bool) {
	if len(b) < 2 || b[0] != metaMagic || b[1] != noticeLeaving {
		return "", "", false
	}
	b = b[2:]
	field := func() (string, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return "", false
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s, true
	}
	if name, ok = field(); !ok || name == "" {
		return "", "", false
	}
	if gossip, ok = field(); !ok {
		return "", "", false
	}
	return name, gossip, true
}

// tellLeaving sends the leave notice to every live member not leaving
// itself (the last job's client may still be listed) at once and
// waits for the sends, up to timeout (0: until each has ended, which
// memberlist's TCPTimeout bounds). A send still under way when it returns
// ends within that bound on its own.
func (m *Membership) tellLeaving(timeout time.Duration) {
	m.mu.Lock()
	msg := leaveNotice(m.name, m.addr)
	to := make([]*memberlist.Node, 0, len(m.peers))
	for _, p := range m.peers {
		if p.Leaving {
			continue // gone, or as good as
		}
		if n, ok := gossipNode(p); ok {
			to = append(to, n)
		}
	}
	m.mu.Unlock()
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

// heardLeaving records that the node name, at gossip address gossip, said
// it leaves: a member is reported Updated with Leaving, unless it had said
// so already; a node not known yet is remembered (earlyLeaves). The mark
// stands until the member is gone (event), and makes every node stop
// inviting the member, so a notice that names a member at another gossip
// address than gossip brought it from changes nothing: it is a stale word
// of an earlier node of that name, or a forgery by one who knows the name
// only. (memberlist does not say who sent a message; its cluster key
// keeps strangers out.)
func (m *Membership) heardLeaving(name, gossip string, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.peers[name]
	if !ok {
		m.early.add(name, gossip, now)
		return
	}
	if p.Leaving || p.Gossip != gossip {
		return
	}
	p.Leaving = true
	m.peers[name] = p
	// Pushed under m.mu, as event pushes: the queue's order is the
	// order of the changes to peers.
	m.events.push(Event{Kind: Updated, Member: p})
}

// earlyFor is how long a leave notice of a node not known yet is kept:
// far longer than gossip takes to bring a node to every member, and short
// enough that a node of the same name and address started anew later is
// not taken for leaving.
const earlyFor = 5 * time.Second

// maxEarly bounds the notices kept: a member that sends many cannot grow
// the node's memory.
const maxEarly = 1024

// earlyLeaves are the leave notices of nodes not known yet, by name. Its
// owner's lock guards it; the zero value is empty and ready.
type earlyLeaves map[string]earlyLeave

type earlyLeave struct {
	gossip string
	at     time.Time
}

// add keeps name's notice, dropping those older than earlyFor; with
// maxEarly kept already, it keeps none.
func (e *earlyLeaves) add(name, gossip string, now time.Time) {
	if *e == nil {
		*e = earlyLeaves{}
	}
	for n, l := range *e {
		if now.Sub(l.at) > earlyFor {
			delete(*e, n)
		}
	}
	if len(*e) < maxEarly {
		(*e)[name] = earlyLeave{gossip: gossip, at: now}
	}
}

// take reports whether the node name, which gossip brings from gossip at
// now, said it leaves before it was known, and forgets the notice.
func (e earlyLeaves) take(name, gossip string, now time.Time) bool {
	l, ok := e[name]
	if !ok {
		return false
	}
	delete(e, name)
	return l.gossip == gossip && now.Sub(l.at) <= earlyFor
}
