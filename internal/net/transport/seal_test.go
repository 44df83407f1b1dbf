package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sync"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/tsys-go/tsys/internal/proctest"
)

var (
	dNonce = bytes.Repeat([]byte{1}, nonceLen)
	aNonce = bytes.Repeat([]byte{2}, nonceLen)
)

// testSealers are the two ends of one direction of a connection.
func testSealers() (send, recv *sealer) {
	d2a, _ := sessionKeys(key1, dNonce, aNonce, "d", "a")
	return newSealer(d2a), newSealer(bytes.Clone(d2a))
}

// sealedFrame is a frame as a writer with sealer s sends it.
func sealedFrame(tb testing.TB, s *sealer, compress bool, ms ...*Message) []byte {
	tb.Helper()
	var p []byte
	for _, m := range ms {
		p = AppendMessage(p, m)
	}
	flags := byte(flagSealed)
	if compress {
		p = s2.Encode(nil, p)
		flags |= flagCompressed
	}
	f := make([]byte, headerLen, headerLen+len(p)+sealTagLen)
	putHeader(f, flags, len(p)+sealTagLen)
	f, err := s.seal(append(f, p...))
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// readAll reads frames from b with open until an error, returning the
// payloads read and the error (io.EOF at a clean end).
func readAll(b []byte, open *sealer) ([][]byte, error) {
	br := bufio.NewReader(bytes.NewReader(b))
	var scratch frameScratch
	var out [][]byte
	for {
		p, _, err := readFrame(br, 1<<16, &scratch, open)
		if err != nil {
			return out, err
		}
		out = append(out, p)
	}
}

// TestSessionKeys: both ends derive the same keys; the two directions'
// keys differ, and every input changes them.
func TestSessionKeys(t *testing.T) {
	d2a, a2d := sessionKeys(key1, dNonce, aNonce, "d", "a")
	d2a2, a2d2 := sessionKeys(bytes.Clone(key1), bytes.Clone(dNonce), bytes.Clone(aNonce), "d", "a")
	if !bytes.Equal(d2a, d2a2) || !bytes.Equal(a2d, a2d2) || len(d2a) != sealKeyLen {
		t.Fatal("the two ends derive different keys")
	}
	if bytes.Equal(d2a, a2d) {
		t.Fatal("both directions have one key")
	}
	for name, k := range map[string][]byte{
		"another cluster key": func() []byte { k, _ := sessionKeys([]byte("another key"), dNonce, aNonce, "d", "a"); return k }(),
		"another nonce":       func() []byte { k, _ := sessionKeys(key1, aNonce, aNonce, "d", "a"); return k }(),
		"nonces swapped":      func() []byte { k, _ := sessionKeys(key1, aNonce, dNonce, "d", "a"); return k }(),
		"names swapped":       func() []byte { k, _ := sessionKeys(key1, dNonce, aNonce, "a", "d"); return k }(),
		"names run together":  func() []byte { k, _ := sessionKeys(key1, dNonce, aNonce, "da", ""); return k }(),
	} {
		if bytes.Equal(k, d2a) {
			t.Errorf("%s: same key", name)
		}
	}
}

// TestSealedFrames: sealed frames, plain and compressed, open in order;
// any byte altered, a frame replayed, reordered, dropped, reflected or cut
// short is a protocol error and yields no payload; a keyed connection
// takes no unsealed frame and a keyless one no sealed frame.
func TestSealedFrames(t *testing.T) {
	small := testMessage{Type: tPing, ID: 1, Payload: []byte("rt.tile")}.msg()
	big := &Message{Type: tData, Body: bytes.Repeat([]byte("pixels"), 2000)}
	send, recv := testSealers()
	f0 := sealedFrame(t, send, false, small)
	f1 := sealedFrame(t, send, true, big, small)
	f2 := sealedFrame(t, send, false, big)
	stream := bytes.Join([][]byte{f0, f1, f2}, nil)
	if bytes.Contains(stream, []byte("rt.tile")) || bytes.Contains(stream, []byte("pixels")) {
		t.Fatal("plain text in sealed frames")
	}
	got, err := readAll(stream, recv)
	if err != io.EOF || len(got) != 3 {
		t.Fatalf("read %d frames, then %v", len(got), err)
	}
	if want := AppendMessage(AppendMessage(nil, big), small); !bytes.Equal(got[1], want) {
		t.Fatal("the compressed frame opened to something else")
	}

	protocolError := func(name string, b []byte, open *sealer, wantFrames int) {
		t.Helper()
		got, err := readAll(b, open)
		var ve *VersionError
		if err == io.EOF || !errors.Is(err, ErrProtocol) && !errors.As(err, &ve) {
			t.Errorf("%s: %v, want a protocol error", name, err)
		}
		if len(got) != wantFrames {
			t.Errorf("%s: %d frames read before the error, want %d", name, len(got), wantFrames)
		}
	}
	fresh := func() *sealer { _, r := testSealers(); return r }
	for i := range f1 {
		b := bytes.Clone(stream)
		b[len(f0)+i] ^= 0x01
		protocolError(fmt.Sprintf("bit flipped in byte %d of frame 1", i), b, fresh(), 1)
	}
	protocolError("replayed", bytes.Join([][]byte{f0, f0}, nil), fresh(), 1)
	protocolError("reordered", bytes.Join([][]byte{f1, f0}, nil), fresh(), 0)
	protocolError("dropped", bytes.Join([][]byte{f0, f2}, nil), fresh(), 1)
	cut := bytes.Clone(f0[:len(f0)-1])
	putHeader(cut, flagSealed, len(cut)-headerLen)
	protocolError("tag cut by a byte", cut, fresh(), 0)
	noTag := bytes.Clone(f0[:headerLen+sealTagLen-1])
	putHeader(noTag, flagSealed, sealTagLen-1)
	protocolError("shorter than a tag", noTag, fresh(), 0)
	protocolError("truncated", f0[:len(f0)-1], fresh(), 0)
	// The other direction's key, as a frame reflected back at its sender
	// would meet.
	_, a2d := sessionKeys(key1, dNonce, aNonce, "d", "a")
	protocolError("reflected", f0, newSealer(a2d), 0)
	protocolError("unsealed on a keyed connection", frameBytes(false, small), fresh(), 0)
	protocolError("sealed on a keyless connection", f0, nil, 0)

	// A direction whose nonces are spent closes rather than repeat one.
	spent, _ := testSealers()
	spent.seq = math.MaxUint64 - 1
	sealedFrame(t, spent, false, small)
	f := make([]byte, headerLen, 64)
	putHeader(f, flagSealed, sealTagLen)
	if _, err := spent.seal(f); !errors.Is(err, errSealExhausted) {
		t.Fatalf("sealing past the last nonce: %v", err)
	}
}

// TestRekey: both ends replace the key at the same frame, once it has
// sealed rekeyBytes; a frame sealed under the new key does not open under
// the old.
func TestRekey(t *testing.T) {
	send, recv := testSealers()
	stale, _ := testSealers()
	m := &Message{Type: tData, Body: make([]byte, 1000)}
	first := send.key
	send.bytes, recv.bytes, stale.bytes = rekeyBytes-10, rekeyBytes-10, rekeyBytes-10
	var stream []byte
	for range 3 {
		stream = append(stream, sealedFrame(t, send, false, m)...)
	}
	if bytes.Equal(send.key, first) || send.bytes >= rekeyBytes {
		t.Fatalf("no new key after %d bytes", rekeyBytes)
	}
	if got, err := readAll(stream, recv); err != io.EOF || len(got) != 3 {
		t.Fatalf("across the new key: %d frames, then %v", len(got), err)
	}
	stale.bytes = 0 // an end that missed the change
	if got, err := readAll(stream, stale); !errors.Is(err, ErrProtocol) || len(got) != 1 {
		t.Fatalf("under the old key: %d frames, then %v", len(got), err)
	}
}

// FuzzReadSealedFrame: whatever a keyed connection receives never makes
// the reader panic, every error is a protocol error, a version error or a
// clean end, and what opens is exactly what was sealed, in order.
func FuzzReadSealedFrame(f *testing.F) {
	ms := seedMessages()
	seedSend, _ := testSealers()
	var sent [][]byte
	var seed []byte
	for i, m := range ms {
		fr := sealedFrame(f, seedSend, i%2 == 1, m)
		seed = append(seed, fr...)
		sent = append(sent, AppendMessage(nil, m))
		f.Add(bytes.Clone(seed))
	}
	f.Add(frameBytes(false, ms...))
	f.Add([]byte{'T', 'S', 'Y', 'S', ProtocolVersion, flagSealed, 0, 0, 0, 0x10})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, recv := testSealers()
		got, err := readAll(b, recv)
		var ve *VersionError
		if err != io.EOF && !errors.Is(err, ErrProtocol) && !errors.As(err, &ve) {
			t.Fatalf("unexpected error kind: %v", err)
		}
		for i, p := range got {
			if i >= len(sent) || !bytes.Equal(p, sent[i]) {
				t.Fatalf("frame %d opened to %q, which was not sealed as frame %d", i, p, i)
			}
		}
	})
}

// tap is a TCP proxy between a dialler and a node that records what the
// dialler sends and may alter the frames it sends after the handshake.
type tap struct {
	mu   sync.Mutex // guards startTap's connections
	seen proctest.LockedBuffer
}

// startTap listens on loopback and forwards each connection to target,
// passing the dialler's frames after its first handshakeFrames through
// alter (nil: unchanged), which returns what to send in the frame's place.
func startTap(t *testing.T, target string, handshakeFrames int, alter func(i int, frame []byte) []byte) (*tap, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tp := &tap{}
	var wg sync.WaitGroup
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		tp.mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		tp.mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			tp.mu.Lock()
			conns = append(conns, in, out)
			tp.mu.Unlock()
			wg.Go(func() {
				io.Copy(in, out)
				in.Close()
			})
			wg.Go(func() {
				defer out.Close()
				br := bufio.NewReader(in)
				for i := 0; ; i++ {
					h := make([]byte, headerLen)
					if _, err := io.ReadFull(br, h); err != nil {
						return
					}
					n := int(h[6])<<24 | int(h[7])<<16 | int(h[8])<<8 | int(h[9])
					frame := make([]byte, headerLen+n)
					copy(frame, h)
					if _, err := io.ReadFull(br, frame[headerLen:]); err != nil {
						return
					}
					tp.seen.Write(frame)
					if k := i - handshakeFrames; k >= 0 && alter != nil {
						frame = alter(k, frame)
					}
					if _, err := out.Write(frame); err != nil {
						return
					}
				}
			})
		}
	})
	return tp, ln.Addr().String()
}

// TestSealedOnTheWire: with a key, what crosses the wire after the
// handshake holds none of the messages' bytes, compressed or not; without
// one it does (so the check can fail).
func TestSealedOnTheWire(t *testing.T) {
	secret := []byte("rt.tile: the secret task name")
	for _, key := range [][]byte{nil, key1} {
		a := start(t, "a", key)
		b := start(t, "b", key)
		tp, addr := startTap(t, b.Addr(), 0, nil)
		if err := a.SendSync(addr, testMessage{Type: tData, Payload: secret}.msg()); err != nil {
			t.Fatal(err)
		}
		big := bytes.Repeat(append([]byte(nil), secret...), 500) // compressed
		if err := a.SendSync(addr, testMessage{Type: tData, Payload: big}.msg()); err != nil {
			t.Fatal(err)
		}
		b.in.wait(t, 2)
		if _, m := b.in.get(1); !bytes.Equal(m.Payload, big) {
			t.Fatal("the large message arrived altered")
		}
		seen := tp.seen.Bytes()
		got, _ := readAll(seen, nil) // the plain frames' payloads, decompressed
		plain := bytes.Contains(seen, []byte("rt.tile")) || bytes.Contains(bytes.Join(got, nil), []byte("rt.tile"))
		if key == nil && !plain {
			t.Fatal("the tap saw no plain text of a keyless connection: it cannot see")
		}
		if key != nil && plain {
			t.Fatalf("a keyed connection carried plain text:\n%q", seen)
		}
		if st := a.Stats(); key != nil && st.BytesSent != b.Stats().BytesReceived {
			t.Fatalf("a sent %d bytes, b received %d", st.BytesSent, b.Stats().BytesReceived)
		}
	}
}

// TestAlteredOnTheWire: a frame altered, replayed, dropped or cut on its
// way is a protocol error at the receiver, which closes the connection,
// logs and counts it, and delivers nothing of the frame; the messages
// before it arrive, and the sender's next send dials a new connection.
func TestAlteredOnTheWire(t *testing.T) {
	const keyedHandshake = 2 // the dialler's Hello and Auth
	var held []byte
	cases := []struct {
		name  string
		alter func(frame []byte) []byte // applied to the second frame
	}{
		{"bit flipped in the payload", func(f []byte) []byte { f[headerLen] ^= 0x20; return f }},
		{"bit flipped in the tag", func(f []byte) []byte { f[len(f)-1] ^= 0x01; return f }},
		{"compressed flag set", func(f []byte) []byte { f[5] |= flagCompressed; return f }},
		{"first frame replayed", func(f []byte) []byte { return held }},
		{"dropped", func(f []byte) []byte { return nil }},
		{"tag cut", func(f []byte) []byte {
			f = f[:len(f)-4]
			putHeader(f, f[5], len(f)-headerLen)
			return f
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := start(t, "a", key1)
			b := start(t, "b", key1)
			_, addr := startTap(t, b.Addr(), keyedHandshake, func(i int, f []byte) []byte {
				switch i {
				case 0:
					held = bytes.Clone(f)
				case 1:
					return c.alter(f)
				}
				return f
			})
			for id := range 3 {
				if err := a.SendSync(addr, testMessage{Type: tData, ID: uint64(id), Payload: []byte("payload")}.msg()); err != nil && id < 2 {
					t.Fatal(err)
				}
			}
			b.in.wait(t, 1)
			waitFor(t, "the protocol error", func() bool { return b.Stats().ProtocolErrors == 1 })
			b.log.waitLog(t, "closing connection: bad data from peer")
			// The third message may reach b on a new connection when a
			// learned of the close before sending it; the altered second
			// never may.
			if n := b.in.len(); n > 2 {
				t.Fatalf("b got %d messages of the 3 sent, the altered one among them", n)
			}
			for i := range b.in.len() {
				if _, m := b.in.get(i); m.ID != []uint64{0, 2}[i] {
					t.Fatalf("b's message %d is %+v; want the first, then at most the third", i, m)
				}
			}
			b.log.waitLog(t, "sealed frame 1 does not open")
			// a learns the connection is gone and dials anew.
			waitFor(t, "a new connection", func() bool {
				return a.SendSync(addr, testMessage{Type: tPing, ID: 99}.msg()) == nil && b.in.len() >= 2
			})
		})
	}
}
