package netem

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sync"
	"time"
)

// A Port is one host: the device its packets come out of and go into
// (a TUN device, or a test's stand-in) and the IPv4 address it owns.
type Port struct {
	Addr netip.Addr
	Dev  io.ReadWriteCloser
}

// Config is an Emulator's shape, seed and queue bound.
type Config struct {
	Shape Shape
	Seed  uint64
	// Queue bounds the packets held at once (0: 4096, some 6 MB of
	// full-sized packets, several times what one TCP flow has in flight
	// over a 50 ms path on this machine's loopback speeds).
	Queue int
}

// Stats counts what became of the packets read so far.
type Stats struct {
	Delivered, Lost, CutOff, Overflowed, Unroutable int
}

// Sub is what s counts past o (an earlier Stats): one stretch's figures.
func (s Stats) Sub(o Stats) Stats {
	return Stats{Delivered: s.Delivered - o.Delivered, Lost: s.Lost - o.Lost, CutOff: s.CutOff - o.CutOff,
		Overflowed: s.Overflowed - o.Overflowed, Unroutable: s.Unroutable - o.Unroutable}
}

// Emulator forwards packets between its ports (doc.go).
type Emulator struct {
	ports  []Port
	byAddr map[netip.Addr]int

	mu    sync.Mutex
	pol   *Policy
	q     Queue
	stats Stats

	wake chan struct{} // a packet became the earliest due
	done chan struct{} // closed by Close
	wg   sync.WaitGroup
	once sync.Once
}

// maxPacket bounds one read: an IPv4 packet's largest size.
const maxPacket = 65535

// New starts forwarding between ports; Close stops it and closes their
// devices.
func New(cfg Config, ports []Port) (*Emulator, error) {
	pol, err := NewPolicy(len(ports), cfg.Shape, cfg.Seed)
	if err != nil {
		return nil, err
	}
	if cfg.Queue == 0 {
		cfg.Queue = 4096
	}
	e := &Emulator{ports: ports, byAddr: map[netip.Addr]int{}, pol: pol, q: Queue{Max: cfg.Queue},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	for i, p := range ports {
		if !p.Addr.Is4() {
			return nil, fmt.Errorf("netem: port %d's address %v: want an IPv4 address", i, p.Addr)
		}
		if _, dup := e.byAddr[p.Addr]; dup {
			return nil, fmt.Errorf("netem: two ports own %v", p.Addr)
		}
		e.byAddr[p.Addr] = i
	}
	e.wg.Add(len(ports) + 1)
	for i := range ports {
		go e.read(i)
	}
	go e.deliver()
	return e, nil
}

// SetShape changes what the network does from the next packet on;
// packets already delayed keep their times.
func (e *Emulator) SetShape(s Shape) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.pol.SetShape(s)
}

// Cut cuts host i off, or with cut false joins it again. What was queued
// for it before the cut is still delivered: it was on the wire.
func (e *Emulator) Cut(i int, cut bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pol.SetCut(i, cut)
}

// Stats is what became of the packets read so far.
func (e *Emulator) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// Close stops forwarding, closes the ports' devices and returns once
// every goroutine of the emulator has ended.
func (e *Emulator) Close() error {
	var errs []error
	e.once.Do(func() {
		close(e.done)
		for _, p := range e.ports {
			if err := p.Dev.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	})
	e.wg.Wait()
	return errors.Join(errs...)
}

// read forwards port i's packets until its device is closed.
func (e *Emulator) read(i int) {
	defer e.wg.Done()
	buf := make([]byte, maxPacket)
	for {
		n, err := e.ports[i].Dev.Read(buf)
		if err != nil {
			return
		}
		e.route(i, buf[:n])
	}
}

// route decides the fate of a packet from port from and queues it.
func (e *Emulator) route(from int, pkt []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	to, ok := e.destination(pkt)
	if !ok {
		e.stats.Unroutable++
		return
	}
	v, at := e.pol.Decide(time.Now(), from, to)
	switch v {
	case Lost:
		e.stats.Lost++
		return
	case CutOff:
		e.stats.CutOff++
		return
	}
	first, had := e.q.Next()
	if !e.q.Push(at, to, append([]byte(nil), pkt...)) {
		e.stats.Overflowed++
		return
	}
	if !had || at.Before(first) {
		select {
		case e.wake <- struct{}{}:
		default:
		}
	}
}

// destination is the port owning an IPv4 packet's destination address;
// false for anything else (IPv6, a broadcast, an address no port owns).
func (e *Emulator) destination(pkt []byte) (int, bool) {
	if len(pkt) < 20 || pkt[0]>>4 != 4 {
		return 0, false
	}
	to, ok := e.byAddr[netip.AddrFrom4([4]byte(pkt[16:20]))]
	return to, ok
}

// deliver writes each queued packet to its port when it is due, until
// Close.
func (e *Emulator) deliver() {
	defer e.wg.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		e.mu.Lock()
		due := e.q.Due(time.Now())
		next, ok := e.q.Next()
		e.stats.Delivered += len(due)
		e.mu.Unlock()
		for _, p := range due {
			// A write fails only when the device is closed (Close) or
			// the host's stack refuses the packet: a drop either way.
			e.ports[p.to].Dev.Write(p.data)
		}
		wait := time.Hour
		if ok {
			wait = time.Until(next)
		}
		timer.Reset(wait)
		select {
		case <-e.wake:
		case <-timer.C:
		case <-e.done:
			return
		}
	}
}
