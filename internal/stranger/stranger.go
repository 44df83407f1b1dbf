// Package stranger plays, in tests, a stranger on the network: from
// another loopback address than the nodes under test (or, with StartFrom,
// from theirs), it holds idle
// connections to a node's port, reopening each as it closes, and sends
// garbage on more. The transport's tests and the node process's test use
// it to show that a stranger cannot keep a node out of a job.
package stranger

import (
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"
)

// From is the address a stranger dials from: Linux routes all of 127/8 to
// the loopback interface, and the nodes under test dial from 127.0.0.1,
// so that a node's budget per source tells the two apart.
var From = &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}

// Stranger is a siege of one port; Stop ends it (and the test's end does).
type Stranger struct {
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
	dials int
}

// garbage are what a stranger sends besides random bytes: another
// protocol, a tsys frame header announcing 4 GiB, one of a version to come,
// a TLS hello.
var garbage = []string{
	"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
	"TSYS\x07\x00\xff\xff\xff\xff",
	"TSYS\x63\x00\x00\x00\x00\x01\x03",
	"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
}

// Start besieges addr with idle connections held open, and one more
// goroutine sending garbage on fresh ones. It skips the test where this
// machine cannot dial from From.
func Start(t testing.TB, addr string, idle int) *Stranger {
	t.Helper()
	return StartFrom(t, From.IP, addr, idle)
}

// StartFrom is Start dialling from the address from: 127.0.0.1 is the
// address a one-machine cluster's peers dial from, so a stranger there
// shares their budget per source.
func StartFrom(t testing.TB, from net.IP, addr string, idle int) *Stranger {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: from}, Timeout: time.Second}
	if nc, err := d.Dial("tcp", addr); err != nil {
		t.Skipf("cannot dial from %v: %v", from, err)
	} else {
		nc.Close()
	}
	s := &Stranger{stop: make(chan struct{}), conns: map[net.Conn]bool{}}
	// dial returns a connection that Stop closes, or nil once stopping.
	dial := func() net.Conn {
		for {
			select {
			case <-s.stop:
				return nil
			default:
			}
			s.mu.Lock()
			s.dials++
			s.mu.Unlock()
			nc, err := d.Dial("tcp", addr)
			if err == nil {
				s.mu.Lock()
				select {
				case <-s.stop:
					s.mu.Unlock()
					nc.Close()
					return nil
				default:
				}
				s.conns[nc] = true
				s.mu.Unlock()
				return nc
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	drop := func(nc net.Conn) {
		s.mu.Lock()
		delete(s.conns, nc)
		s.mu.Unlock()
		nc.(*net.TCPConn).SetLinger(0)
		nc.Close()
	}
	for range idle {
		s.wg.Go(func() {
			for nc := dial(); nc != nil; nc = dial() {
				io.Copy(io.Discard, nc) // until the node hangs up
				drop(nc)
				// Held connections are reopened at once; the pause
				// spares the test's CPU when the node refuses at once.
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	s.wg.Go(func() {
		rng := rand.New(rand.NewPCG(24, 24))
		for nc := dial(); nc != nil; nc = dial() {
			b := []byte(garbage[rng.IntN(len(garbage))])
			if rng.IntN(2) == 0 {
				b = make([]byte, 1+rng.IntN(200))
				for i := range b {
					b[i] = byte(rng.Uint32())
				}
			}
			nc.Write(b)
			drop(nc)
			time.Sleep(time.Millisecond)
		}
	})
	t.Cleanup(s.Stop)
	return s
}

// Dials is how many connections the stranger has tried.
func (s *Stranger) Dials() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dials
}

// Stop ends the siege and closes its connections; it may be called again.
func (s *Stranger) Stop() {
	s.mu.Lock()
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	for nc := range s.conns {
		nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}
