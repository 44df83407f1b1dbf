package netnstest

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/netem"
)

// echo listens on host i's address in its namespace and echoes one line
// per connection; it returns the listener's address.
func echo(t *testing.T, h *Hosts, i int) string {
	t.Helper()
	var ln net.Listener
	if err := netem.InNamespace(h.Names[i], func() (err error) {
		ln, err = net.Listen("tcp", h.Addrs[i]+":0")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(30 * time.Second))
				if l, err := bufio.NewReader(c).ReadString('\n'); err == nil {
					io.WriteString(c, l)
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip dials addr from host i's namespace, sends a line and reads
// it back, all within 30 s.
func roundTrip(t *testing.T, h *Hosts, i int, addr string) (time.Duration, error) {
	t.Helper()
	began := time.Now()
	var c net.Conn
	if err := netem.InNamespace(h.Names[i], func() (err error) {
		c, err = net.DialTimeout("tcp", addr, 30*time.Second)
		return err
	}); err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, "hello across\n"); err != nil {
		return 0, err
	}
	l, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return 0, err
	}
	if l != "hello across\n" {
		t.Errorf("echoed %q", l)
	}
	return time.Since(began), nil
}

// A connection across the emulator carries its bytes, and takes at least
// the delay it adds: a connect (SYN, SYN-ACK) and an echo (the line, its
// echo) cross the path four times, so at least 4 x the least one-way
// delay (a floor, never a ceiling: a loaded machine only adds). A cut
// host is reached by nobody.
func TestEmulatedDelaysAndCuts(t *testing.T) {
	const delay, jitter = 100 * time.Millisecond, 20 * time.Millisecond
	h, em := Emulated(t, 3, netem.Config{Shape: netem.Shape{Delay: delay, Jitter: jitter}, Seed: 1})
	addr := echo(t, h, 1)
	took, err := roundTrip(t, h, 0, addr)
	if err != nil {
		t.Fatal(err)
	}
	if least := 4 * (delay - jitter); took < least {
		t.Errorf("a connect and an echo took %v across a %v +- %v path: want at least %v", took, delay, jitter, least)
	}
	em.SetShape(netem.Shape{})
	em.Cut(1, true)
	if err := netem.InNamespace(h.Names[2], func() error {
		c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
		if err == nil {
			c.Close()
			t.Error("a cut host took a connection")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	em.Cut(1, false)
	if _, err := roundTrip(t, h, 2, addr); err != nil {
		t.Fatalf("after the cut: %v", err)
	}
	if s := em.Stats(); s.Delivered == 0 || s.CutOff == 0 {
		t.Errorf("stats %+v: want packets delivered and some cut off", s)
	}
}

// Bridged hosts reach each other; one whose port is down is reached by
// nobody until it is up again.
func TestBridgedHostsAndALinkDown(t *testing.T) {
	h := Bridged(t, 2, true)
	addr := echo(t, h, 1)
	if _, err := roundTrip(t, h, 0, addr); err != nil {
		t.Fatal(err)
	}
	h.SetLink(t, 1, false)
	if err := netem.InNamespace(h.Names[0], func() error {
		if c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond); err == nil {
			c.Close()
			t.Error("a host whose link is down took a connection")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h.SetLink(t, 1, true)
	if _, err := roundTrip(t, h, 0, addr); err != nil {
		t.Fatalf("after the link came up: %v", err)
	}
}
