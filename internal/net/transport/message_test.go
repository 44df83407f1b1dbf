package transport

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
)

// equalMessages compares two messages, nil and empty bodies alike.
func equalMessages(a, b *Message) bool {
	return a.Type == b.Type && bytes.Equal(a.Body, b.Body)
}

func randBytes(rng *rand.Rand, n int) []byte {
	if n == 0 && rng.IntN(2) == 0 {
		return nil
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func TestMessageRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		m := Message{Type: MsgType(1 + rng.IntN(255)), Body: randBytes(rng, rng.IntN(300))}
		if i%7 == 0 {
			m.Body = nil
		}
		b := AppendMessage([]byte{0xee}, &m)[1:]
		got, n, err := DecodeMessage(append(b, 0xaa, 0xbb)) // trailing bytes are the next message's
		if err != nil || n != len(b) || !equalMessages(&got, &m) {
			t.Fatalf("%+v: decoded %+v, %d of %d bytes, %v", m, got, n, len(b), err)
		}
	}
	if b := AppendMessage(nil, &Message{Type: tPing}); len(b) != 2 {
		t.Errorf("an empty message takes %d bytes, want 2", len(b))
	}
}

func TestDecodeTruncatedAndLimits(t *testing.T) {
	m := Message{Type: tData, Body: bytes.Repeat([]byte{7}, 200)}
	b := AppendMessage(nil, &m)
	for i := range b {
		if _, _, err := DecodeMessage(b[:i]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("prefix %d of %d: %v", i, len(b), err)
		}
	}
	for name, in := range map[string][]byte{
		"type 0":          {0, 0},
		"huge body":       {byte(tData), 0xff, 0xff, 0xff, 0xff, 0x0f},
		"body past limit": append([]byte{byte(tData)}, 0x81, 0x80, 0x80, 0x20), // 64 MiB + 1
		"length overflow": {byte(tData), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
	} {
		if _, _, err := DecodeMessage(in); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want a malformed-message error", name, err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, m := range []Message{
		{Type: 0},
		{Type: msgHello},
		{Type: msgAuth},
		{Type: tData, Body: make([]byte, MaxBody+1)},
	} {
		if m.Validate() == nil {
			t.Errorf("Validate(%v, %d bytes) = nil", m.Type, len(m.Body))
		}
	}
	if err := (&Message{Type: 255, Body: make([]byte, MaxBody)}).Validate(); err != nil {
		t.Errorf("a full-size message of the last type: %v", err)
	}
}

func frameBytes(compress bool, ms ...*Message) []byte {
	var p []byte
	for _, m := range ms {
		p = AppendMessage(p, m)
	}
	var flags byte
	if compress {
		p = s2.Encode(nil, p)
		flags = flagCompressed
	}
	f := make([]byte, headerLen, headerLen+len(p))
	putHeader(f, flags, len(p))
	return append(f, p...)
}

func TestReadFrameErrors(t *testing.T) {
	// Its payload read as s2 announces fewer bytes than it holds: corrupt.
	good := frameBytes(false, testMessage{Type: tPing, ID: 5, Payload: bytes.Repeat([]byte{0xff}, 8)}.msg())
	withHeader := func(f func(h []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	cases := []struct {
		name, want string
		b          []byte
	}{
		{"empty", "EOF", nil},
		{"short header", "truncated frame header", good[:5]},
		{"magic", "bad magic", withHeader(func(h []byte) { h[0] = 'X' })},
		{"version", fmt.Sprintf("peer speaks tsys protocol v%d, this node v%d", ProtocolVersion+1, ProtocolVersion), withHeader(func(h []byte) { h[4] = ProtocolVersion + 1 })},
		{"flags", "unknown frame flags", withHeader(func(h []byte) { h[5] = 0x82 })},
		{"oversized", "frame length 4294967295 exceeds limit 65536", withHeader(func(h []byte) { copy(h[6:], []byte{0xff, 0xff, 0xff, 0xff}) })},
		{"truncated", fmt.Sprintf("truncated frame: %d of %d payload bytes", len(good)-headerLen-1, len(good)-headerLen), good[:len(good)-1]},
		{"not s2", "corrupt compressed payload", withHeader(func(h []byte) { h[5] = flagCompressed })},
		{"s2 too big", "decompressed length", func() []byte {
			b := frameBytes(true, &Message{Type: tData, Body: make([]byte, 70000)})
			return b
		}()},
	}
	for _, c := range cases {
		var scratch frameScratch
		_, _, err := readFrame(bytes.NewReader(c.b), 1<<16, &scratch, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	// good frames, plain and compressed, read back
	big := &Message{Type: tData, Body: bytes.Repeat([]byte("tile"), 3000)}
	for _, comp := range []bool{false, true} {
		var scratch frameScratch
		f := frameBytes(comp, big, big)
		p, wire, err := readFrame(bytes.NewReader(f), 1<<16, &scratch, nil)
		if err != nil || wire != len(f) {
			t.Fatalf("compressed=%v: wire %d of %d, err %v", comp, wire, len(f), err)
		}
		n, err := decodeBatch(p, func(m *Message) error {
			if !equalMessages(m, big) {
				t.Fatal("payload differs")
			}
			return nil
		})
		if n != 2 || err != nil {
			t.Fatalf("compressed=%v: %d messages, err %v", comp, n, err)
		}
	}
}

// TestReadFrameLargeClaim: a frame that announces much and sends little
// fails without allocating what it announced.
func TestReadFrameLargeClaim(t *testing.T) {
	h := make([]byte, headerLen)
	putHeader(h, 0, 60<<20)
	var scratch frameScratch
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := readFrame(bytes.NewReader(append(h, 1, 2, 3)), 64<<20, &scratch, nil)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("no error")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Fatalf("allocated %d bytes for a 3-byte frame announcing 60 MiB", n)
	}
}
