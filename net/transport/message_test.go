package transport

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
)

// equalMessages compares two messages, nil and empty slices alike.
func equalMessages(a, b *Message) bool {
	if a.Type != b.Type || a.Job != b.Job || a.ID != b.ID || a.Count != b.Count ||
		a.Kind != b.Kind || !bytes.Equal(a.Payload, b.Payload) || a.Err != b.Err ||
		len(a.Tasks) != len(b.Tasks) {
		return false
	}
	for i := range a.Tasks {
		x, y := &a.Tasks[i], &b.Tasks[i]
		if x.ID != y.ID || x.Kind != y.Kind || !bytes.Equal(x.Arg, y.Arg) {
			return false
		}
	}
	return true
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

func randString(rng *rand.Rand, max int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz.ABC/0123456789 é€"
	var sb strings.Builder
	for n := rng.IntN(max + 1); sb.Len() < n; {
		sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return sb.String()[:min(sb.Len(), max)]
}

// randUint returns numbers of every varint length, zero included.
func randUint(rng *rand.Rand) uint64 {
	switch rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return rng.Uint64()
	default:
		return rng.Uint64() >> rng.IntN(64)
	}
}

func randMessage(rng *rand.Rand, typ MsgType) Message {
	m := Message{
		Type:  typ,
		Job:   randUint(rng),
		ID:    randUint(rng),
		Count: int32(randUint(rng)),
	}
	if rng.IntN(3) > 0 {
		m.Kind = randString(rng, MaxStringLen)
	}
	if rng.IntN(3) > 0 {
		m.Payload = randBytes(rng, rng.IntN(300))
	}
	if rng.IntN(3) > 0 {
		m.Err = randString(rng, 100)
	}
	if rng.IntN(2) > 0 {
		m.Tasks = make([]TaskRecord, rng.IntN(20))
		for i := range m.Tasks {
			m.Tasks[i] = TaskRecord{ID: randUint(rng), Kind: randString(rng, 20), Arg: randBytes(rng, rng.IntN(50))}
		}
	}
	return m
}

// TestMessageRoundTrip: random messages of every type, alone and back to
// back, decode to what was encoded and consume exactly their bytes.
func TestMessageRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for typ := MsgType(1); typ <= maxMsgType; typ++ {
		for range 200 {
			m := randMessage(rng, typ)
			b := AppendMessage([]byte{0xEE}, &m)[1:]
			got, n, err := DecodeMessage(b)
			if err != nil {
				t.Fatalf("%v: decode: %v", typ, err)
			}
			if n != len(b) {
				t.Fatalf("%v: consumed %d of %d bytes", typ, n, len(b))
			}
			if !equalMessages(&m, &got) {
				t.Fatalf("%v: round trip:\n got %+v\nwant %+v", typ, got, m)
			}
		}
	}
	// a batch, as in a frame
	var ms []Message
	var batch []byte
	for range 100 {
		m := randMessage(rng, MsgType(1+rng.IntN(int(maxMsgType))))
		ms = append(ms, m)
		batch = AppendMessage(batch, &m)
	}
	i := 0
	if _, err := decodeBatch(batch, func(m *Message) error {
		if !equalMessages(m, &ms[i]) {
			t.Fatalf("batch message %d differs", i)
		}
		i++
		return nil
	}); err != nil || i != len(ms) {
		t.Fatalf("batch: %d messages, err %v", i, err)
	}
}

func TestMessageZeroFieldsAreFree(t *testing.T) {
	m := Message{Type: MsgPing}
	if b := AppendMessage(nil, &m); len(b) != 2 {
		t.Fatalf("empty Ping encodes to %d bytes, want 2", len(b))
	}
	m = Message{Type: MsgStealRequest, Job: 3, ID: 100, Count: 4}
	if b := AppendMessage(nil, &m); len(b) != 5 {
		t.Fatalf("small StealRequest encodes to %d bytes, want 5", len(b))
	}
}

// TestDecodeTruncated: every proper prefix of a valid encoding fails
// cleanly.
func TestDecodeTruncated(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for range 50 {
		m := randMessage(rng, MsgStealReply)
		m.Tasks = append(m.Tasks, TaskRecord{ID: 1, Kind: "k", Arg: []byte{1}})
		b := AppendMessage(nil, &m)
		for i := range len(b) {
			if _, _, err := DecodeMessage(b[:i]); !errors.Is(err, ErrMalformed) {
				t.Fatalf("prefix %d of %d: err %v, want ErrMalformed", i, len(b), err)
			}
		}
	}
}

func TestDecodeLimits(t *testing.T) {
	enc := func(m Message) []byte { return AppendMessage(nil, &m) }
	long := strings.Repeat("x", MaxStringLen+1)
	cases := map[string][]byte{
		"unknown type 0":  {0, 0},
		"unknown type 99": {99, 0},
		"unknown bits":    {byte(MsgPing), 0x80},
		"long kind":       enc(Message{Type: MsgResult, Kind: long}),
		"long task kind":  enc(Message{Type: MsgStealReply, Tasks: []TaskRecord{{Kind: long}}}),
		"count overflow":  {byte(MsgLoad), fCount, 0x80, 0x80, 0x80, 0x80, 0x20},
		"uvarint 11 bytes": {byte(MsgResult), fJob,
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"too many tasks":   {byte(MsgStealReply), fTasks, 0x81, 0x80, 0x04}, // 65537
		"huge payload len": {byte(MsgResult), fPayload, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"tasks announced":  {byte(MsgStealReply), fTasks, 0x80, 0x80, 0x04}, // 65536, none there
	}
	for name, b := range cases {
		if _, _, err := DecodeMessage(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	// Err is truncated on encode, at a rune boundary
	m := Message{Type: MsgJobFailed, Err: strings.Repeat("€", MaxErrLen)}
	got, _, err := DecodeMessage(AppendMessage(nil, &m))
	if err != nil || len(got.Err) > MaxErrLen || len(got.Err) < MaxErrLen-3 || !strings.HasPrefix(m.Err, got.Err) {
		t.Fatalf("long Err: %d bytes, err %v", len(got.Err), err)
	}
}

func TestValidate(t *testing.T) {
	bad := []Message{
		{},
		{Type: MsgHello},
		{Type: MsgAuth},
		{Type: maxMsgType + 1},
		{Type: MsgResult, Kind: strings.Repeat("k", MaxStringLen+1)},
		{Type: MsgStealReply, Tasks: make([]TaskRecord, MaxTasks+1)},
		{Type: MsgStealReply, Tasks: []TaskRecord{{Kind: strings.Repeat("k", MaxStringLen+1)}}},
	}
	for _, m := range bad {
		if err := m.Validate(); err == nil {
			t.Errorf("Validate(%v) = nil", m.Type)
		}
	}
	ok := Message{Type: MsgStealReply, Tasks: make([]TaskRecord, MaxTasks), Err: strings.Repeat("e", 10*MaxErrLen)}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}

// frameBytes builds a frame holding ms, compressed if asked.
func frameBytes(compress bool, ms ...Message) []byte {
	var p []byte
	for i := range ms {
		p = AppendMessage(p, &ms[i])
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
	good := frameBytes(false, Message{Type: MsgPing, ID: 5})
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
		{"version", "peer speaks tsys protocol v2, this node v1", withHeader(func(h []byte) { h[4] = 2 })},
		{"flags", "unknown frame flags", withHeader(func(h []byte) { h[5] = 0x82 })},
		{"oversized", "frame length 4294967295 exceeds limit 65536", withHeader(func(h []byte) { copy(h[6:], []byte{0xff, 0xff, 0xff, 0xff}) })},
		{"truncated", "truncated frame: 2 of 3 payload bytes", good[:len(good)-1]},
		{"not s2", "corrupt compressed payload", withHeader(func(h []byte) { h[5] = flagCompressed })},
		{"s2 too big", "decompressed length", func() []byte {
			b := frameBytes(true, Message{Type: MsgResult, Payload: make([]byte, 70000)})
			return b
		}()},
	}
	for _, c := range cases {
		var scratch []byte
		_, _, err := readFrame(bytes.NewReader(c.b), 1<<16, &scratch)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	// good frames, plain and compressed, read back
	big := Message{Type: MsgResult, Payload: bytes.Repeat([]byte("tile"), 3000)}
	for _, comp := range []bool{false, true} {
		var scratch []byte
		f := frameBytes(comp, big, big)
		p, wire, err := readFrame(bytes.NewReader(f), 1<<16, &scratch)
		if err != nil || wire != len(f) {
			t.Fatalf("compressed=%v: wire %d of %d, err %v", comp, wire, len(f), err)
		}
		n, err := decodeBatch(p, func(m *Message) error {
			if !equalMessages(m, &big) {
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
	var scratch []byte
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := readFrame(bytes.NewReader(append(h, 1, 2, 3)), 64<<20, &scratch)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("no error")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Fatalf("allocated %d bytes for a 3-byte frame announcing 60 MiB", n)
	}
}
