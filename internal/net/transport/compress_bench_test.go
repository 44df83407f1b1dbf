package transport

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// The compression benchmarks behind the codec and threshold choice in
// doc.go:
//
//	go test -run '^$' -bench Compress -benchtime 2000x ./net/transport/
//
// Each op encodes a frame payload of realistic messages, compresses it,
// decompresses it and decodes the messages again. Metrics: ratio
// (compressed/raw), saved-B (bytes saved per frame), ns/saved-B (CPU spent
// per byte saved; the wire time a byte costs is 8 ns at 1 Gbit/s, 0.8 ns at
// 10 Gbit/s) and wire-ns-1G (nanoseconds saved on a 1 Gbit/s link).

// tileData holds three 64x64 RGB tiles (12 KiB each) rendered by apps/rt
// on its DefaultJob, one per scene (balls, tetra, grid), each the tile of
// median s2 compressibility of its scene.
func tileData(tb testing.TB) [][]byte {
	b, err := os.ReadFile("testdata/tiles.rgb")
	if err != nil {
		tb.Fatal(err)
	}
	const n = 64 * 64 * 3
	return [][]byte{b[:n], b[n : 2*n], b[2*n : 3*n]}
}

// smallMessages returns a batch of k messages of the kinds the runtime
// sends most: steal requests, steal replies lending one task with a short
// argument, results with a short encoded value.
func smallMessages(k int, rng *rand.Rand) []Message {
	ms := make([]Message, 0, k)
	for i := range k {
		switch i % 3 {
		case 0:
			ms = append(ms, *testMessage{Type: tRequest, Job: 7, ID: uint64(1000 + i), Count: 4}.msg())
		case 1:
			arg := make([]byte, 64)
			for j := range arg {
				// a mix of small integers and float bits, as gob-free task
				// arguments are
				if j%8 < 5 {
					arg[j] = byte(rng.IntN(4))
				} else {
					arg[j] = byte(rng.Uint32())
				}
			}
			ms = append(ms, *testMessage{Type: tReply, Job: 7, ID: uint64(1000 + i), Count: 1, Payload: append([]byte("rt.render"), arg...)}.msg())
		case 2:
			ms = append(ms, *testMessage{Type: tData, Job: 7, ID: 1<<40 + uint64(i), Payload: []byte{byte(i), 0x81, 0x3f, byte(rng.Uint32())}}.msg())
		}
	}
	return ms
}

type codec struct {
	name string
	enc  func(dst, src []byte) []byte
	dec  func(dst, src []byte) ([]byte, error)
}

func codecs(tb testing.TB) []codec {
	zf, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		tb.Fatal(err)
	}
	zd, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		tb.Fatal(err)
	}
	zdec := func(dst, src []byte) ([]byte, error) { return zr.DecodeAll(src, dst[:0]) }
	return []codec{
		{"none(msgs)", nil, nil},
		{"s2", s2.Encode, s2.Decode},
		{"s2better", s2.EncodeBetter, s2.Decode},
		{"zstdfastest", func(dst, src []byte) []byte { return zf.EncodeAll(src, dst[:0]) }, zdec},
		{"zstddefault", func(dst, src []byte) []byte { return zd.EncodeAll(src, dst[:0]) }, zdec},
	}
}

// benchPayload measures one codec on the frame payload of ms: compress and
// decompress (the "none" codec: encode and decode the messages instead, for
// scale).
func benchPayload(b *testing.B, c codec, ms []Message) {
	var raw []byte
	for i := range ms {
		raw = AppendMessage(raw, &ms[i])
	}
	cbuf := make([]byte, s2.MaxEncodedLen(len(raw))+1024)
	dbuf := make([]byte, len(raw))
	clen := len(raw)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if c.enc == nil {
			p := raw[:0]
			for i := range ms {
				p = AppendMessage(p, &ms[i])
			}
			if _, err := decodeBatch(p, func(*Message) error { return nil }); err != nil {
				b.Fatal(err)
			}
			continue
		}
		z := c.enc(cbuf, raw)
		clen = len(z)
		if _, err := c.dec(dbuf, z); err != nil {
			b.Fatal(err)
		}
	}
	saved := len(raw) - clen
	b.ReportMetric(float64(clen)/float64(len(raw)), "ratio")
	b.ReportMetric(float64(saved), "saved-B")
	b.ReportMetric(float64(saved)*8, "wire-ns-1G")
	if c.enc != nil && saved > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(saved), "ns/saved-B")
	}
}

func BenchmarkCompress(b *testing.B) {
	tiles := tileData(b)
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 12<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	payloads := []struct {
		name string
		ms   []Message
	}{
		{"tile-balls", []Message{*testMessage{Type: tData, Job: 7, ID: 99, Payload: tiles[0]}.msg()}},
		{"tile-tetra", []Message{*testMessage{Type: tData, Job: 7, ID: 99, Payload: tiles[1]}.msg()}},
		{"tile-grid", []Message{*testMessage{Type: tData, Job: 7, ID: 99, Payload: tiles[2]}.msg()}},
		{"random-12K", []Message{*testMessage{Type: tData, Job: 7, ID: 99, Payload: random}.msg()}},
	}
	// batches of small messages of growing size, for the threshold
	for _, k := range []int{1, 3, 6, 12, 24, 48, 96} {
		ms := smallMessages(k, rand.New(rand.NewPCG(3, uint64(k))))
		n := 0
		for i := range ms {
			n = len(AppendMessage(nil, &ms[i])) + n
		}
		payloads = append(payloads, struct {
			name string
			ms   []Message
		}{fmt.Sprintf("small-x%d-%dB", k, n), ms})
	}
	for _, p := range payloads {
		for _, c := range codecs(b) {
			b.Run(p.name+"/"+c.name, func(b *testing.B) { benchPayload(b, c, p.ms) })
		}
	}
}
