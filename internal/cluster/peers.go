package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/membership"
	"github.com/tsys-go/tsys/internal/net/transport"
)

// peerBook is what a node knows of the other members: where each one's
// task transport listens, and its metadata as gossip last brought it.
//
// A member is known to gossip when the book holds its metadata. Its
// address can come earlier, from a message it sent (learn): a job's start
// or a steal request often beats gossip. Whoever tells a job's policy of
// its peers asks joined, never "has an address".
//
// Safe for concurrent use; its lock is taken after every other lock of
// the node and held for no call out.
type peerBook struct {
	self  clusterpolicy.NodeID
	mu    sync.RWMutex
	addrs map[clusterpolicy.NodeID]string
	metas map[clusterpolicy.NodeID]membership.Meta
	// gone are members that left or died: a late message of theirs must
	// not make them peers again (learn) until gossip brings them back.
	gone map[clusterpolicy.NodeID]bool
}

func newPeerBook(self clusterpolicy.NodeID) *peerBook {
	return &peerBook{
		self:  self,
		addrs: map[clusterpolicy.NodeID]string{},
		metas: map[clusterpolicy.NodeID]membership.Meta{},
		gone:  map[clusterpolicy.NodeID]bool{},
	}
}

// addr is member id's transport address, if known.
func (b *peerBook) addr(id clusterpolicy.NodeID) (string, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	a, ok := b.addrs[id]
	return a, ok
}

// addressOf is id's known transport address, or else fallback (an address
// a message of id carried).
func (b *peerBook) addressOf(id clusterpolicy.NodeID, fallback string) (string, error) {
	// A route back on a connection is only as good as that connection:
	// the message at hand came on the newest one.
	if a, ok := b.addr(id); ok && (fallback == "" || !transport.IsReplyAddr(a)) {
		return a, nil
	}
	if fallback == "" {
		return "", fmt.Errorf("node %s has no address for %s", b.self, id)
	}
	return fallback, nil
}

// list is every reachable member's transport address, a copy.
func (b *peerBook) list() map[clusterpolicy.NodeID]string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return maps.Clone(b.addrs)
}

// reachable is how many members have a known address.
func (b *peerBook) reachable() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.addrs)
}

// meta is member id's metadata, if gossip has brought it.
func (b *peerBook) meta(id clusterpolicy.NodeID) (membership.Meta, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	m, ok := b.metas[id]
	return m, ok
}

// members are the metadata of every member gossip has brought, a copy.
func (b *peerBook) members() map[clusterpolicy.NodeID]membership.Meta {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return maps.Clone(b.metas)
}

// learn keeps the address a message of id carried (see trustReplyTo:
// gossip's, or a route back on its connection), for a member gossip has
// not brought yet; not for one that left.
func (b *peerBook) learn(id clusterpolicy.NodeID, addr string) {
	if addr == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// A route (a connection back to id) gives way to a newer one: the
	// old connection may have closed. Gossip's address stays.
	if cur, ok := b.addrs[id]; (!ok || transport.IsReplyAddr(cur) && !b.hasMeta(id)) && !b.gone[id] {
		b.addrs[id] = addr
	}
}

// hasMeta reports whether gossip has brought id; b.mu is held.
func (b *peerBook) hasMeta(id clusterpolicy.NodeID) bool {
	_, ok := b.metas[id]
	return ok
}

// joined records gossip's word on member id (it joined, or its metadata
// changed) and says whether gossip had not brought it before.
func (b *peerBook) joined(id clusterpolicy.NodeID, meta membership.Meta) (isNew bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, known := b.metas[id]
	delete(b.gone, id)
	b.addrs[id], b.metas[id] = meta.Transport, meta
	return !known
}

// left records that member id left or died.
func (b *peerBook) left(id clusterpolicy.NodeID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.addrs, id)
	delete(b.metas, id)
	b.gone[id] = true
}

// isGone says whether gossip's last word on member id is that it left or
// died.
func (b *peerBook) isGone(id clusterpolicy.NodeID) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.gone[id]
}

// disagreement returns an error naming the first member whose scheduler
// differs from scheduler, this node's (a job run across them would
// measure neither), or two nodes that share their workers differently
// (their choices would not agree); share is this node's sharing policy,
// "" for a client, which shares nothing.
func (b *peerBook) disagreement(scheduler, share string) error {
	shares := map[string]clusterpolicy.NodeID{}
	if share != "" {
		shares[share] = b.self
	}
	for id, m := range b.members() {
		if m.Scheduler != scheduler {
			return fmt.Errorf("node %s runs scheduler %q, this node %q: start every node of a cluster with the same --sched", id, m.Scheduler, scheduler)
		}
		if m.Client {
			continue
		}
		shares[m.Share] = id
		if len(shares) > 1 {
			var parts []string
			for s, id := range shares {
				parts = append(parts, fmt.Sprintf("node %s shares by %q", id, s))
			}
			slices.Sort(parts)
			return fmt.Errorf("%s: start every node of a cluster with the same --share", strings.Join(parts, ", "))
		}
	}
	return nil
}
