package membership

import (
	"sync"
	"time"
)

// A partition longer than failure detection leaves each side holding the
// other dead, and memberlist alone never heals that: it gossips to a dead
// node only for GossipToTheDeadTime (2 s on the fast timing, 30 s on the
// LAN's) and exchanges state only with live ones. So a node asks every
// peer it declared dead (not one that left) to join it again, at its
// gossiped address, every reconnectEvery for reconnectFor: the join's
// state exchange tells each side that the other holds it dead, each
// refutes it, and both are members again (TestRejoinsAPeerDeclaredDead;
// cmd/tsys/badnet's 15 s worker cut). The address is one gossip gave:
// nothing a stranger names is dialled.
const (
	reconnectEvery = time.Second
	reconnectFor   = 10 * time.Minute
)

// lostPeers are the peers declared dead, by name, with their gossip
// addresses and when they were lost.
type lostPeers struct {
	mu    sync.Mutex
	peers map[string]lostPeer
	// added has a value when a peer was lost since the reconnector last
	// looked, so that with none lost it waits without a timer: an idle
	// node wakes only for gossip and for what it is asked.
	added chan struct{}
}

type lostPeer struct {
	addr  string
	since time.Time
}

// note records what an event says of a peer: dead (Left, Failed) it is
// tried again; joined or gone gracefully it is not.
func (l *lostPeers) note(e Event, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.Kind == Left && e.Failed && e.Member.Gossip != "" {
		if l.peers == nil {
			l.peers = map[string]lostPeer{}
		}
		l.peers[e.Member.Name] = lostPeer{addr: e.Member.Gossip, since: now}
		select {
		case l.added <- struct{}{}:
		default:
		}
		return
	}
	if e.Kind == Joined || e.Kind == Left {
		delete(l.peers, e.Member.Name)
	}
}

// any reports whether a peer is lost.
func (l *lostPeers) any() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.peers) > 0
}

// due forgets the peers lost longer than reconnectFor and returns the
// addresses of the others.
func (l *lostPeers) due(now time.Time) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var addrs []string
	for name, p := range l.peers {
		if now.Sub(p.since) > reconnectFor {
			delete(l.peers, name)
			continue
		}
		addrs = append(addrs, p.addr)
	}
	return addrs
}

// reconnector asks the lost peers to join again, until Shutdown. A join
// to a peer still cut off waits memberlist's TCPTimeout (up to 10 s): the
// tries are one at a time, so a partition costs one goroutine and one
// dial, and Shutdown does not wait for the one under way, which ends
// within that timeout on its own (TestShutdownDoesNotWaitForAReconnect).
func (m *Membership) reconnector() {
	defer m.wg.Done()
	for {
		if !m.lost.any() {
			select {
			case <-m.stop:
				return
			case <-m.lost.added:
			}
		}
		select {
		case <-m.stop:
			return
		case <-time.After(reconnectEvery):
		}
		for _, addr := range m.lost.due(time.Now()) {
			tried := make(chan struct{})
			go func() {
				defer close(tried)
				if _, err := m.ml.Join([]string{addr}); err == nil {
					m.log.Info("membership: a peer declared dead answers again; rejoined it", "gossip", addr)
				}
			}()
			select {
			case <-tried:
			case <-m.stop:
				return
			}
		}
	}
}
