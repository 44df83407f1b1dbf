package transport

import (
	"net"
	"sync"
)

// An inbound connection costs a goroutine, a read buffer and a slot of the
// handshake until it has proved itself, and before that anyone may open
// one. Handshakes are therefore budgeted by source: a source (one IPv4
// address, or one IPv6 /64, which a single host commonly holds whole) has
// at most perSourceHandshakes in the handshake at once, and the node at
// most maxHandshakes over all sources. A connection beyond its source's
// budget waits, parked (a socket, nothing read, no goroutine), until one
// of that source's handshakes ends: nodes that share an address (a
// one-machine cluster on 127.0.0.1) dial a node all at once when a job
// starts, and must not be refused for it; and a stranger that holds
// connections is better held, quietly, than refused into reopening them
// as fast as it can, which crowds the kernel's queue of connections not
// yet accepted, where a peer's connection waits in line with the
// stranger's. Parking is bounded (parkPerSource, parkTotal): beyond it,
// and beyond maxHandshakes, a connection is refused at once, before it
// has cost more than the accept.
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

// source is one source's share of the budget.
type source struct {
	active int        // handshakes running (and refused ones lingering)
	parked []net.Conn // waiting for a slot, oldest first
}

// budget keeps the handshakes in progress by source.
type budget struct {
	mu      sync.Mutex
	closed  bool
	active  int // handshakes running over all sources
	parked  int // connections parked over all sources
	sources map[string]*source

	parkPerSource, parkTotal int // limits, set by newBudget
}

// newBudget is a budget for a process that may hold files open files (0:
// unknown).
func newBudget(files int) *budget {
	b := &budget{parkPerSource: parkPerSource, parkTotal: parkTotal}
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

// admit decides for nc, a new connection from source key. A parked nc is
// the budget's until done hands it back or close returns it.
func (b *budget) admit(key string, nc net.Conn) admission {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return refuseClosed
	}
	s := b.sources[key]
	if s == nil {
		s = &source{}
	}
	var a admission
	switch {
	case s.active < perSourceHandshakes && b.active >= maxHandshakes:
		return refuseTotal
	case s.active < perSourceHandshakes:
		s.active++
		b.active++
		a = admitStart
	case len(s.parked) >= b.parkPerSource:
		return refuseSource
	case b.parked >= b.parkTotal:
		return refuseTotal
	default:
		s.parked = append(s.parked, nc)
		b.parked++
		a = admitParked
	}
	if b.sources == nil {
		b.sources = make(map[string]*source)
	}
	b.sources[key] = s
	return a
}

// done ends a handshake of source key. It returns the connection of that
// source parked longest, which takes over the slot and must be started,
// or nil.
func (b *budget) done(key string) net.Conn {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.sources[key]
	if s == nil { // closed meanwhile
		return nil
	}
	if len(s.parked) > 0 && !b.closed {
		next := s.parked[0]
		s.parked[0] = nil
		s.parked = s.parked[1:]
		b.parked--
		return next
	}
	s.active--
	b.active--
	if s.active == 0 && len(s.parked) == 0 {
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
		parked = append(parked, s.parked...)
		s.parked = nil
	}
	b.parked = 0
	return parked
}
