package transport

import (
	"net"
	"slices"
	"sync"
	"time"
)

// An inbound connection costs a goroutine, a read buffer and a slot of the
// handshake until it has proved itself, and before that anyone may open
// one. Handshakes are therefore budgeted by source: a source (one IPv4
// address, or one IPv6 /64, which a single host commonly holds whole) has
// at most perSourceHandshakes in the handshake at once, and the node at
// most maxHandshakes over all sources.
//
// A stranger may share its address with real peers (a one-machine
// cluster on 127.0.0.1, a NAT), so the budget must not serve a source's
// connections first come, first served: a stranger that holds idle
// connections would have the peer's wait behind all of them. What tells
// them apart before any proof is progress: a peer sends its Hello as
// soon as its connect returns, a stranger holding a connection sends
// nothing, and a stranger that forges a Hello (which needs no key)
// stalls at the Auth it cannot make. So a connection of a full source
// takes the slot of the source's handshake that has made no progress
// (read no byte) for longest, if that is idleGrace or more (the idle
// one is closed), and otherwise waits, parked (a socket, nothing
// read, no goroutine); a freed slot goes to the newest parked connection,
// one whose Hello has arrived first (waitingParked), since a peer's connection is
// recent and a held one old. Parking is bounded (parkPerSource,
// parkTotal): a source past its parking lets go of a parked connection
// (leastParked: of its oldest, one whose Hello has not arrived), the
// node past its own refuses the new one, before it has cost more than
// the accept. The same holds over all sources: with
// maxHandshakes running, a new connection takes the slot of the idlest
// handshake anywhere, or is refused.
//
// Progress tells a peer from a stranger only once the stranger stalls.
// When the cluster's membership is at hand (Config.Members), a
// connection whose Hello, arrived and unread, names a member of it from
// the host of that member's gossiped address goes ahead at once: it takes
// the slot of the source's oldest handshake not admitted so, rather than
// park behind strangers, and a parked one goes ahead at the source's next
// admission or freed slot. A stranger on the member's own host can forge
// that too; it gains a slot and no more (the handshake still decides).
//
// Closing the oldest idle connection rather than refusing the newest
// gives a stranger nothing it does not have anyway (it can open and close
// connections as fast as it likes) and gives the peer, whose connection
// is the newest and not idle, a slot at once.
const (
	maxHandshakes       = 128 // inbound connections in the handshake at once, over all sources
	perSourceHandshakes = 8   // of them from one source
	parkPerSource       = 512
	// parkTotal is the most parked over all sources, and at most a
	// quarter of the process's limit on open files, so that parked
	// sockets never keep the node from accepting. It is of the order of
	// the kernel's own queue of connections not yet accepted (somaxconn,
	// 4096 on Linux), which anyone may fill as well.
	parkTotal = 2048
)

// admission is what the budget decides for a new inbound connection.
type admission int

const (
	admitStart   admission = iota // start its handshake now
	admitParked                   // parked until its source has a free slot
	refuseSource                  // its source has its slots and parking spaces taken
	refuseTotal                   // the node has maxHandshakes running, or its parking is full
	refuseClosed                  // the transport is closing
)

// entry is one connection the budget holds, in a slot or parked.
type entry struct {
	nc    net.Conn
	since time.Time // admitted to its slot, or parked
	last  time.Time // its handshake last read bytes of it, or since
	// member: its Hello named a member, from that member's address
	// (Members), when it was admitted to its slot.
	member bool
}

// source is one source's share of the budget.
type source struct {
	active []*entry // in the handshake (and refused ones lingering), oldest first
	parked []*entry // waiting for a slot, oldest first
}

// budget keeps the handshakes in progress by source. It decides only:
// the caller closes the connections it names (victims of admit), and
// starts those it returns (done).
type budget struct {
	mu      sync.Mutex
	closed  bool
	active  int // handshakes running over all sources
	parked  int // connections parked over all sources
	sources map[string]*source
	evicted map[net.Conn]struct{} // taken out of their slot, until done

	parkPerSource, parkTotal int // limits, set by newBudget
	// idleGrace is how long a handshake may read nothing before a newer
	// connection may take its slot.
	idleGrace time.Duration
	// waiting reports whether bytes of nc have arrived that nobody has
	// read yet (bytesWaiting); a handshake with bytes waiting is not
	// idle, however long its goroutine takes to read them.
	waiting func(nc net.Conn) bool
	// probe is what a parked connection's bytes say (probe): its Hello
	// has arrived, or garbage, or nothing, or its peer hung up.
	probe func(nc net.Conn) sockState
	// member reports whether the Hello waiting on nc names a current
	// member at nc's address (memberHello); nil: the transport has no
	// Members, and no connection goes ahead as a member's.
	member func(nc net.Conn) bool
}

// newBudget is a budget for a process that may hold files open files (0:
// unknown), whose handshakes that hear nothing for idleGrace may be
// closed to admit newer connections.
func newBudget(files int, idleGrace time.Duration) *budget {
	b := &budget{parkPerSource: parkPerSource, parkTotal: parkTotal, idleGrace: idleGrace, waiting: bytesWaiting, probe: probe}
	if files > 0 {
		b.parkTotal = min(b.parkTotal, files/4)
		b.parkPerSource = min(b.parkPerSource, b.parkTotal)
	}
	return b
}

// sourceKey is the budget key of a remote address: its IP, or for IPv6
// its /64.
func sourceKey(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	if ip4 := ta.IP.To4(); ip4 != nil {
		return ip4.String()
	}
	return ta.IP.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// admit decides at now for nc, a new connection from source key. The
// victim, if not nil, is a connection the budget has let go of to make
// room: the caller closes it. The promoted, if not nil, is a parked
// connection of the source that takes the victim's slot rather than nc,
// because its bytes have arrived (nc's cannot have yet): the caller
// starts it. A parked nc is the budget's until done hands it back or
// close returns it.
func (b *budget) admit(key string, nc net.Conn, now time.Time) (a admission, victim, promoted net.Conn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return refuseClosed, nil, nil
	}
	s := b.sources[key]
	if s == nil {
		s = &source{}
	}
	switch {
	case len(s.active) < perSourceHandshakes && b.active < maxHandshakes:
		b.active++
	case len(s.active) < perSourceHandshakes:
		victim = b.evictOldestIdle(nil, now)
		if victim == nil {
			return refuseTotal, nil, nil
		}
	default:
		if b.isMember(nc) {
			// A member's Hello came with its connection: it takes the
			// slot of a connection that is not known as a member's, at
			// once, rather than park behind strangers.
			if victim = b.evictStranger(s); victim != nil {
				s.active = append(s.active, &entry{nc: nc, since: now, last: now, member: true})
				return admitStart, victim, nil
			}
		}
		victim = b.evictOldestIdle(s, now)
		j := -1
		if victim != nil {
			j = b.waitingParked(s)
		} else if j = b.memberParked(s); j >= 0 {
			// A member's Hello has arrived on a parked connection since
			// it parked: it goes ahead of the strangers' handshakes.
			victim = b.evictStranger(s)
		}
		if victim != nil && j >= 0 {
			e := s.parked[j]
			s.parked = append(slices.Delete(s.parked, j, j+1), &entry{nc: nc, since: now, last: now})
			e.since, e.last, e.member = now, now, b.isMember(e.nc)
			s.active = append(s.active, e)
			return admitParked, victim, e.nc
		}
		if victim != nil {
			break
		}
		if len(s.parked) >= b.parkPerSource {
			j := b.leastParked(s)
			victim = s.parked[j].nc
			s.parked = slices.Delete(s.parked, j, j+1)
			b.parked--
		} else if b.parked >= b.parkTotal {
			return refuseTotal, nil, nil
		}
		s.parked = append(s.parked, &entry{nc: nc, since: now, last: now})
		b.parked++
		b.keep(key, s)
		return admitParked, victim, nil
	}
	s.active = append(s.active, &entry{nc: nc, since: now, last: now})
	b.keep(key, s)
	return admitStart, victim, nil
}

// scanParked is how many of a source's newest (and oldest) parked
// connections are asked what has arrived: each asking is a system call
// made under the lock.
const scanParked = 8

// waitingParked is the index of the parked connection of s to start
// ahead of others, or -1: a member's (memberParked); else the newest of
// s's scanParked newest, else of
// its scanParked oldest, whose Hello has arrived (a peer's connection is
// either recent or has outlived the garbage around it, see leastParked);
// else the newest of the scanParked newest with any bytes waiting.
func (b *budget) waitingParked(s *source) int {
	if j := b.memberParked(s); j >= 0 {
		return j
	}
	n := len(s.parked)
	for j := n - 1; j >= max(0, n-scanParked); j-- {
		if b.probe(s.parked[j].nc) == sockHello {
			return j
		}
	}
	for j := min(n, scanParked) - 1; j >= 0; j-- {
		if b.probe(s.parked[j].nc) == sockHello {
			return j
		}
	}
	for j := n - 1; j >= max(0, n-scanParked); j-- {
		if b.waiting(s.parked[j].nc) {
			return j
		}
	}
	return -1
}

// isMember reports whether nc's Hello, arrived and unread, names a member
// at nc's address.
func (b *budget) isMember(nc net.Conn) bool { return b.member != nil && b.member(nc) }

// memberParked is the index of a parked connection of s whose Hello names
// a member at its address, among s's scanParked newest and oldest, or -1.
func (b *budget) memberParked(s *source) int {
	if b.member == nil {
		return -1
	}
	n := len(s.parked)
	for j := n - 1; j >= max(0, n-scanParked); j-- {
		if b.member(s.parked[j].nc) {
			return j
		}
	}
	for j := range min(n-scanParked, scanParked) {
		if b.member(s.parked[j].nc) {
			return j
		}
	}
	return -1
}

// evictStranger takes out of its slot the oldest handshake of s not
// admitted as a member's, and returns its connection, or nil if every
// one was. The slot stays taken: the caller gives it to a member's
// connection.
func (b *budget) evictStranger(s *source) net.Conn {
	i := slices.IndexFunc(s.active, func(e *entry) bool { return !e.member })
	if i < 0 {
		return nil
	}
	return b.evict(s, i)
}

// evict takes s's i'th handshake out of the budget and marks its
// connection evicted (to be closed by the caller), returning it.
func (b *budget) evict(s *source, i int) net.Conn {
	nc := s.active[i].nc
	s.active = slices.Delete(s.active, i, i+1)
	if b.evicted == nil {
		b.evicted = make(map[net.Conn]struct{})
	}
	b.evicted[nc] = struct{}{}
	return nc
}

// leastParked is the index of the parked connection of s to let go when
// its parking is full: of the scanParked oldest, the first whose Hello
// has not arrived (garbage, nothing, or a hang-up), else the oldest. A
// stranger's held connections are empty and what it sends is rarely a
// Hello, so a peer's parked connection outlives them.
func (b *budget) leastParked(s *source) int {
	for j := range min(len(s.parked), scanParked) {
		if b.probe(s.parked[j].nc) != sockHello {
			return j
		}
	}
	return 0
}

func (b *budget) keep(key string, s *source) {
	if b.sources == nil {
		b.sources = make(map[string]*source)
	}
	b.sources[key] = s
}

// evictOldestIdle takes out of its slot the handshake of s (of any
// source if s is nil) that has read nothing for longest, if that is
// idleGrace or more and no bytes of it are waiting, and returns its
// connection, or nil if there is none. The slot stays taken: the caller
// gives it to the new connection.
func (b *budget) evictOldestIdle(s *source, now time.Time) net.Conn {
	var from *source
	at := -1
	consider := func(src *source) {
		for i, e := range src.active {
			if now.Sub(e.last) < b.idleGrace || at >= 0 && !e.last.Before(from.active[at].last) {
				continue
			}
			if b.waiting(e.nc) {
				e.last = now
				continue
			}
			from, at = src, i
		}
	}
	if s != nil {
		consider(s)
	} else {
		for _, src := range b.sources {
			consider(src)
		}
	}
	if at < 0 {
		return nil
	}
	nc := b.evict(from, at)
	if s == nil {
		for key, src := range b.sources {
			if src == from && len(src.active) == 0 && len(src.parked) == 0 {
				delete(b.sources, key)
			}
		}
	}
	return nc
}

// progress records that the handshake of nc, from source key, read
// bytes of it at now: it is not idle.
func (b *budget) progress(key string, nc net.Conn, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.sources[key]; s != nil {
		for _, e := range s.active {
			if e.nc == nc {
				e.last = now
				return
			}
		}
	}
}

// wasEvicted reports whether nc was closed by the budget to make room
// (its handshake's failure is then no refusal worth a line).
func (b *budget) wasEvicted(nc net.Conn) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.evicted[nc]
	return ok
}

// done ends at now the handshake of nc, from source key. It returns the
// parked connection of that source to take over the slot, which must be
// started: the newest one whose bytes have arrived, else the newest. Or
// nil.
func (b *budget) done(key string, nc net.Conn, now time.Time) net.Conn {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.evicted[nc]; ok {
		delete(b.evicted, nc)
		return nil // its slot went to the connection that evicted it
	}
	s := b.sources[key]
	if s == nil { // closed meanwhile
		return nil
	}
	i := slices.IndexFunc(s.active, func(e *entry) bool { return e.nc == nc })
	if i < 0 {
		return nil
	}
	s.active = slices.Delete(s.active, i, i+1)
	if len(s.parked) > 0 && !b.closed {
		next := b.waitingParked(s)
		if next < 0 {
			next = len(s.parked) - 1
		}
		e := s.parked[next]
		s.parked = slices.Delete(s.parked, next, next+1)
		b.parked--
		e.since, e.last, e.member = now, now, b.isMember(e.nc)
		s.active = append(s.active, e)
		return e.nc
	}
	b.active--
	if len(s.active) == 0 && len(s.parked) == 0 {
		delete(b.sources, key)
	}
	return nil
}

// close refuses every later connection and returns the parked ones, for
// the caller to close.
func (b *budget) close() []net.Conn {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	var parked []net.Conn
	for _, s := range b.sources {
		for _, e := range s.parked {
			parked = append(parked, e.nc)
		}
		s.parked = nil
	}
	b.parked = 0
	return parked
}
