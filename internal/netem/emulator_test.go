package netem

import (
	"errors"
	"io"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeDev is a Port's device in memory: Send is a packet its host sends
// (what Read returns), Recv the packets written to it.
type fakeDev struct {
	send, recv chan []byte
	closeOnce  sync.Once
	closed     chan struct{}
}

func newFakeDev() *fakeDev {
	return &fakeDev{send: make(chan []byte), recv: make(chan []byte, 64), closed: make(chan struct{})}
}

func (d *fakeDev) Read(p []byte) (int, error) {
	select {
	case b := <-d.send:
		return copy(p, b), nil
	case <-d.closed:
		return 0, io.EOF
	}
}

func (d *fakeDev) Write(p []byte) (int, error) {
	select {
	case <-d.closed:
		return 0, errors.New("closed")
	default:
	}
	d.recv <- append([]byte(nil), p...)
	return len(p), nil
}

func (d *fakeDev) Close() error {
	d.closeOnce.Do(func() { close(d.closed) })
	return nil
}

// ipv4 is a minimal IPv4 packet from src to dst carrying body.
func ipv4(src, dst string, body string) []byte {
	p := make([]byte, 20, 20+len(body))
	p[0] = 0x45
	s, d := netip.MustParseAddr(src).As4(), netip.MustParseAddr(dst).As4()
	copy(p[12:16], s[:])
	copy(p[16:20], d[:])
	return append(p, body...)
}

// start is an emulator between n fake hosts 10.0.0.1, .2, ...
func start(t *testing.T, n int, cfg Config) (*Emulator, []*fakeDev) {
	t.Helper()
	var ports []Port
	var devs []*fakeDev
	for i := range n {
		d := newFakeDev()
		devs = append(devs, d)
		ports = append(ports, Port{Addr: netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}), Dev: d})
	}
	e, err := New(cfg, ports)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, devs
}

// routed returns once the packets sent on d so far have been routed:
// the emulator reads a device's next packet only after routing the last,
// so once it takes this unroutable one, the one before is decided.
func routed(d *fakeDev) { d.send <- ipv4("10.0.0.1", "10.9.9.9", "flush") }

// received waits (bounded) for the next packet written to d.
func received(t *testing.T, d *fakeDev) []byte {
	t.Helper()
	select {
	case b := <-d.recv:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no packet forwarded within 10 s")
		return nil
	}
}

func TestEmulatorForwardsToTheOwnerOfTheDestination(t *testing.T) {
	e, devs := start(t, 3, Config{})
	devs[0].send <- ipv4("10.0.0.1", "10.0.0.3", "to three")
	devs[2].send <- ipv4("10.0.0.3", "10.0.0.2", "to two")
	if b := received(t, devs[2]); !strings.HasSuffix(string(b), "to three") {
		t.Errorf("host 3 got %q", b)
	}
	if b := received(t, devs[1]); !strings.HasSuffix(string(b), "to two") {
		t.Errorf("host 2 got %q", b)
	}
	// Not IPv4, too short, no owner: dropped; the next packet still goes.
	devs[0].send <- append([]byte{0x60}, make([]byte, 39)...)
	devs[0].send <- []byte{0x45, 0}
	devs[0].send <- ipv4("10.0.0.1", "10.0.0.9", "nobody")
	devs[0].send <- ipv4("10.0.0.1", "10.0.0.2", "after")
	if b := received(t, devs[1]); !strings.HasSuffix(string(b), "after") {
		t.Errorf("host 2 got %q", b)
	}
	if s := e.Stats(); s.Unroutable != 3 || s.Delivered != 3 {
		t.Errorf("stats %+v, want 3 unroutable and 3 delivered", s)
	}
}

// A cut host's packets are dropped both ways, and flow again once it is
// joined; at loss 1 every packet is lost.
func TestEmulatorDropsWhatItShould(t *testing.T) {
	e, devs := start(t, 2, Config{})
	e.Cut(1, true)
	devs[0].send <- ipv4("10.0.0.1", "10.0.0.2", "in the cut")
	devs[1].send <- ipv4("10.0.0.2", "10.0.0.1", "in the cut")
	routed(devs[0])
	routed(devs[1])
	e.Cut(1, false)
	devs[0].send <- ipv4("10.0.0.1", "10.0.0.2", "after the cut")
	if b := received(t, devs[1]); !strings.HasSuffix(string(b), "after the cut") {
		t.Errorf("host 2 got %q, want the packet after the cut", b)
	}
	if err := e.SetShape(Shape{Loss: 1}); err != nil {
		t.Fatal(err)
	}
	devs[0].send <- ipv4("10.0.0.1", "10.0.0.2", "lost")
	routed(devs[0])
	if err := e.SetShape(Shape{}); err != nil {
		t.Fatal(err)
	}
	devs[0].send <- ipv4("10.0.0.1", "10.0.0.2", "kept")
	if b := received(t, devs[1]); !strings.HasSuffix(string(b), "kept") {
		t.Errorf("host 2 got %q, want the packet after the loss", b)
	}
	if s := e.Stats(); s.CutOff != 2 || s.Lost != 1 || s.Delivered != 2 || s.Unroutable != 3 {
		t.Errorf("stats %+v, want 2 cut off, 1 lost, 2 delivered, 3 unroutable (the tests' flushes)", s)
	}
	if d := e.Stats().Sub(Stats{CutOff: 2, Lost: 1}); d.CutOff != 0 || d.Lost != 0 || d.Delivered != 2 {
		t.Errorf("Sub: %+v, want the figures less 2 cut off and 1 lost", d)
	}
	if err := e.SetShape(Shape{Loss: 2}); err == nil {
		t.Error("SetShape took a loss of 2")
	}
}

// Delayed packets are still queued when Close comes: every goroutine of
// the emulator ends all the same.
func TestEmulatorCloseLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	e, devs := start(t, 3, Config{Shape: Shape{Delay: time.Hour}})
	devs[0].send <- ipv4("10.0.0.1", "10.0.0.2", "held an hour")
	routed(devs[0])
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
	if len(devs[1].recv) != 0 {
		t.Error("a packet delayed an hour was delivered")
	}
}

func TestNewRefusesBadPorts(t *testing.T) {
	d := newFakeDev()
	if _, err := New(Config{}, []Port{{Addr: netip.MustParseAddr("::1"), Dev: d}}); err == nil || !strings.Contains(err.Error(), "IPv4") {
		t.Errorf("an IPv6 port: %v", err)
	}
	a := netip.MustParseAddr("10.0.0.1")
	if _, err := New(Config{}, []Port{{Addr: a, Dev: d}, {Addr: a, Dev: d}}); err == nil || !strings.Contains(err.Error(), "two ports") {
		t.Errorf("two ports of one address: %v", err)
	}
	if _, err := New(Config{Shape: Shape{Jitter: time.Second}}, nil); err == nil {
		t.Error("a jitter past the delay was taken")
	}
}
