package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/klauspost/compress/s2"
)

// capture records what crosses the loopback interface to or from one
// address, as tcpdump would, through an AF_PACKET socket (root only).
type capture struct {
	fd   int
	addr [4]byte
	done chan struct{}
	wg   sync.WaitGroup

	mu    sync.Mutex
	raw   []byte            // every IP packet to or from addr, back to back
	flows map[string][]byte // each TCP flow's payload, in order
	order []string          // flows in the order first seen
}

// cannotCapture skips the test, saying why, or fails it where
// TSYS_REQUIRE_CAPTURE is set (.ci/run sets it when it runs as root).
func cannotCapture(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("TSYS_REQUIRE_CAPTURE") != "" {
		t.Fatalf(format+" (TSYS_REQUIRE_CAPTURE is set: this machine was found able to)", args...)
	}
	t.Skipf(format, args...)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

const (
	ethPAll          = 0x0003 // ETH_P_ALL
	packetOutgoing   = 4      // PACKET_OUTGOING: lo shows each packet leaving, then arriving
	solPacket        = 263    // SOL_PACKET
	packetStatistics = 6      // PACKET_STATISTICS
)

// startCapture starts capturing the loopback traffic of addr, an IPv4
// address on lo.
func startCapture(t *testing.T, addr string) *capture {
	t.Helper()
	if os.Geteuid() != 0 {
		cannotCapture(t, "capturing packets needs root: run the tests as root (CI does) to check that keyed traffic is sealed")
	}
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		cannotCapture(t, "no loopback interface named lo: %v", err)
	}
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_RAW, int(htons(ethPAll)))
	if err != nil {
		cannotCapture(t, "cannot open a packet socket: %v", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrLinklayer{Protocol: htons(ethPAll), Ifindex: lo.Index}); err != nil {
		syscall.Close(fd)
		cannotCapture(t, "cannot bind a packet socket to lo: %v", err)
	}
	// Room for everything a job sends, should the reader fall behind.
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUFFORCE, 64<<20); err != nil {
		syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<20)
	}
	tv := syscall.Timeval{Usec: 50_000} // to notice the stop
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	c := &capture{fd: fd, done: make(chan struct{}), flows: map[string][]byte{}}
	copy(c.addr[:], net.ParseIP(addr).To4())
	c.wg.Go(c.read)
	t.Cleanup(func() { c.stop(t) })
	return c
}

// read reads packets until stopped and none is left to read.
func (c *capture) read() {
	buf := make([]byte, 1<<17)
	for {
		n, from, err := syscall.Recvfrom(c.fd, buf, 0)
		if err != nil { // the timeout, or an interrupted call
			select {
			case <-c.done:
				return
			default:
				continue
			}
		}
		if ll, ok := from.(*syscall.SockaddrLinklayer); ok && ll.Pkttype == packetOutgoing {
			continue
		}
		c.packet(buf[:n])
	}
}

// packet keeps an Ethernet frame's IPv4 packet if it is to or from addr.
func (c *capture) packet(f []byte) {
	if len(f) < 14+20 || binary.BigEndian.Uint16(f[12:14]) != 0x0800 {
		return
	}
	ip := f[14:]
	ihl := int(ip[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(ip[2:4]))
	if ihl < 20 || total > len(ip) || total < ihl {
		return
	}
	ip = ip[:total]
	src, dst := [4]byte(ip[12:16]), [4]byte(ip[16:20])
	if src != c.addr && dst != c.addr {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.raw = append(c.raw, ip...)
	if ip[9] != syscall.IPPROTO_TCP || len(ip) < ihl+20 {
		return
	}
	tcp := ip[ihl:]
	payload := tcp[int(tcp[12]>>4)*4:]
	if len(payload) == 0 {
		return
	}
	key := fmt.Sprintf("%v:%d>%v:%d", net.IP(src[:]), binary.BigEndian.Uint16(tcp[0:2]), net.IP(dst[:]), binary.BigEndian.Uint16(tcp[2:4]))
	if _, seen := c.flows[key]; !seen {
		c.order = append(c.order, key)
	}
	c.flows[key] = append(c.flows[key], payload...)
}

// stop ends the capture and fails the test if the kernel dropped
// packets: the check would then be incomplete.
func (c *capture) stop(t *testing.T) {
	select {
	case <-c.done:
		return
	default:
	}
	close(c.done)
	c.wg.Wait()
	var st struct{ packets, drops uint32 }
	size := uint32(unsafe.Sizeof(st))
	_, _, errno := syscall.Syscall6(syscall.SYS_GETSOCKOPT, uintptr(c.fd), solPacket, packetStatistics, uintptr(unsafe.Pointer(&st)), uintptr(unsafe.Pointer(&size)), 0)
	syscall.Close(c.fd)
	if errno != 0 {
		t.Errorf("reading the capture's statistics: %v", errno)
	} else if st.drops > 0 {
		t.Errorf("the capture dropped %d of %d packets: what it checked is incomplete", st.drops, st.packets)
	}
}

// frames are the tsys frames of the flows that carry them (those that
// begin with the magic), each flow's in order.
type frame struct {
	flags   byte
	payload []byte
}

func (c *capture) frames() map[string][]frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]frame{}
	for _, key := range c.order {
		b := c.flows[key]
		for len(b) >= 10 && string(b[:4]) == "TSYS" {
			n := int(binary.BigEndian.Uint32(b[6:10]))
			if len(b) < 10+n {
				break
			}
			out[key] = append(out[key], frame{flags: b[5], payload: b[10 : 10+n]})
			b = b[10+n:]
		}
	}
	return out
}

// pixelWindows are the 8-pixel runs of an image's rows that hold at least
// six distinct byte values: bytes that a rendered tile sent as a result
// holds, and that are unlikely to occur by chance.
func pixelWindows(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	rgb := func(p image.Point) []byte {
		r, g, bl, _ := img.At(p.X, p.Y).RGBA()
		return []byte{byte(r >> 8), byte(g >> 8), byte(bl >> 8)}
	}
	windows := map[string]bool{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		var row []byte
		for x := b.Min.X; x < b.Max.X; x++ {
			row = append(row, rgb(image.Pt(x, y))...)
		}
		for x := 0; x+24 <= len(row); x += 3 {
			w := row[x : x+24]
			distinct := map[byte]bool{}
			for _, v := range w {
				distinct[v] = true
			}
			if len(distinct) >= 6 {
				windows[string(w)] = true
			}
		}
	}
	return windows
}

// countWindows is how many of windows occur in b, at any offset.
func countWindows(b []byte, windows map[string]bool) int {
	n := 0
	for i := 0; i+24 <= len(b); i++ {
		if windows[string(b[i:i+24])] {
			n++
		}
	}
	return n
}

// captureAddr is an address of lo for this test process alone, so that
// what other tests send on 127.0.0.1 at the same time is not captured.
func captureAddr(i int) string {
	pid := os.Getpid()
	return fmt.Sprintf("127.%d.%d.%d", 100+i, pid>>8&0xff, 1+pid&0xfe)
}

// TestKeyedTrafficIsSealed: an rt job on 2 node processes with a cluster
// key, captured on the loopback interface as an eavesdropper would, shows
// neither a task's name ("rt.tile") nor any run of the rendered image's
// pixels, and every task frame after the handshake is sealed; the same job
// without a key shows both (so the check can fail).
func TestKeyedTrafficIsSealed(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte("correct horse battery staple 24"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, keyed := range []bool{false, true} {
		name := map[bool]string{false: "keyless", true: "keyed"}[keyed]
		addr := captureAddr(i)
		var keyArgs []string
		if keyed {
			keyArgs = []string{"--key-file", keyFile}
		}
		c := startCapture(t, addr)
		n, err := startNode(t, append([]string{"--bind", addr + ":0"}, keyArgs...)...)
		if err != nil {
			t.Fatalf("%s node: %v", name, err)
		}
		out := filepath.Join(dir, name+".png")
		obj := tsysRun(t, append([]string{"rt", "-w", "200", "-h", "150", "--samples", "2", "--leaf", "256", "--workers", "1",
			"--bind", addr + ":0", "--join", n.Gossip, "-o", out}, keyArgs...)...)
		// Loopback hands each packet to the capture as it is sent: once
		// the processes are gone, the socket holds all of it.
		n.Stop()
		c.stop(t)
		if obj["nodes"] != float64(2) || stat(obj, "remote_steals") == 0 {
			t.Fatalf("%s: no tasks crossed: nodes %v, stats %v", name, obj["nodes"], obj["stats"])
		}
		windows := pixelWindows(t, out)
		frames := c.frames()
		var plain []byte // what a reader of the frames gets without a key
		sealed, unsealed := 0, 0
		for key, fs := range frames {
			for j, f := range fs {
				switch {
				case f.flags&2 != 0:
					sealed++
				case f.flags&1 != 0:
					if p, err := s2.Decode(nil, f.payload); err == nil {
						plain = append(plain, p...)
					}
					unsealed++
				default:
					plain = append(plain, f.payload...)
					if keyed && j >= 2 {
						t.Errorf("%s: frame %d of flow %s is not sealed", name, j, key)
					}
					unsealed++
				}
			}
		}
		c.mu.Lock()
		raw := c.raw
		c.mu.Unlock()
		names := bytes.Count(raw, []byte("rt.tile")) + bytes.Count(plain, []byte("rt.tile"))
		pixels := countWindows(raw, windows) + countWindows(plain, windows)
		t.Logf("%s: %d bytes captured, %d task frames (%d sealed, %d not) in %d flows; %q %d times, pixel runs %d times",
			name, len(raw), sealed+unsealed, sealed, unsealed, len(frames), "rt.tile", names, pixels)
		if keyed {
			if names > 0 || pixels > 0 || sealed == 0 {
				t.Errorf("keyed: the traffic shows the task name %d times and runs of pixels %d times (%d sealed frames)", names, pixels, sealed)
			}
		} else if names == 0 || pixels == 0 {
			t.Errorf("keyless: the capture shows the task name %d times and runs of pixels %d times: it cannot see the traffic it is to check", names, pixels)
		}
	}
}
