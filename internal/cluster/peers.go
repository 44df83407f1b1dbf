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
// A member on its way out (gossip says it is leaving: a node that
// drains, a client whose job ended) keeps its address and metadata, so
// that what it still sends is answered, but is no longer a peer: no job
// invites it, and nothing goes to it unasked (list, members). A client
// leaves as its process exits: a word sent to it then would be a dial to
// a closed port.
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
	// leaving are members that gossip says are leaving, until they are
	// gone.
	leaving map[clusterpolicy.NodeID]bool
}

func newPeerBook(self clusterpolicy.NodeID) *peerBook {
	return &peerBook{
		self:  self,
		addrs: map[clusterpolicy.NodeID]string{},
		metas: map[clusterpolicy.NodeID]membership.Meta{},
		gone:  map[clusterpolicy.NodeID]bool{},

		leaving: map[clusterpolicy.NodeID]bool{},
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

// list is every reachable member's transport address, a copy: not those
// leaving.
func (b *peerBook) list() map[clusterpolicy.NodeID]string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := maps.Clone(b.addrs)
	for id := range b.leaving {
		delete(out, id)
	}
	return out
}

// listFor is list less the members keep refuses, by their metadata (zero
// for an address only a message brought): a job's word goes to those its
// policy hears of (engine.hears), not to a client of another job, which
// has no use for it and may be gone before gossip says so.
func (b *peerBook) listFor(keep func(clusterpolicy.NodeID, membership.Meta) bool) map[clusterpolicy.NodeID]string {
	out := b.list()
	metas := make(map[clusterpolicy.NodeID]membership.Meta, len(out))
	b.mu.RLock()
	for id := range out {
		metas[id] = b.metas[id]
	}
	b.mu.RUnlock()
	for id, m := range metas {
		if !keep(id, m) {
			delete(out, id)
		}
	}
	return out
}

// reachable is how many members have a known address, not counting those
// leaving.
func (b *peerBook) reachable() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := len(b.addrs)
	for id := range b.leaving {
		if _, ok := b.addrs[id]; ok {
			n--
		}
	}
	return n
}

// meta is member id's metadata, if gossip has brought it.
func (b *peerBook) meta(id clusterpolicy.NodeID) (membership.Meta, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	m, ok := b.metas[id]
	return m, ok
}

// members are the metadata of every member gossip has brought, a copy:
// not those leaving.
func (b *peerBook) members() map[clusterpolicy.NodeID]membership.Meta {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := maps.Clone(b.metas)
	for id := range b.leaving {
		delete(out, id)
	}
	return out
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
// changed, and whether it is leaving) and says whether it is a newcomer:
// gossip had not brought it before, and it is not on its way out. A
// member stays leaving until it is gone (left): an older word may come
// later.
func (b *peerBook) joined(id clusterpolicy.NodeID, meta membership.Meta, leaving bool) (isNew bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, known := b.metas[id]
	delete(b.gone, id)
	b.addrs[id], b.metas[id] = meta.Transport, meta
	if leaving {
		b.leaving[id] = true
	}
	return !known && !b.leaving[id]
}

// left records that member id left or died.
func (b *peerBook) left(id clusterpolicy.NodeID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.addrs, id)
	delete(b.metas, id)
	delete(b.leaving, id)
	b.gone[id] = true
}

// isGone says whether gossip's last word on member id is that it left or
// died.
func (b *peerBook) isGone(id clusterpolicy.NodeID) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.gone[id]
}

// away says whether member id is gone or leaving: no job invites it.
func (b *peerBook) away(id clusterpolicy.NodeID) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.gone[id] || b.leaving[id]
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
