package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

func seedMessages() []*Message {
	return []*Message{
		{Type: tPing},
		testMessage{Type: tRequest, Job: 3, ID: 77, Count: 4}.msg(),
		testMessage{Type: tReply, Job: 3, ID: 77, Payload: []byte("fib")}.msg(),
		{Type: 255, Body: bytes.Repeat([]byte{0x81, 0x02}, 40)},
	}
}

// FuzzDecodeMessage: DecodeMessage never panics, consumes no more than it
// was given, and what it accepts encodes back to something that decodes to
// the same message.
func FuzzDecodeMessage(f *testing.F) {
	for _, m := range seedMessages() {
		f.Add(AppendMessage(nil, m))
	}
	f.Add([]byte{byte(tData), 0x80, 0x80, 0x04})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := DecodeMessage(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		if n < 2 || n > len(b) || m.Type == 0 {
			t.Fatalf("consumed %d of %d bytes", n, len(b))
		}
		e := AppendMessage(nil, &m)
		m2, n2, err := DecodeMessage(e)
		if err != nil || n2 != len(e) || !equalMessages(&m, &m2) {
			t.Fatalf("re-encoding does not round trip: %v", err)
		}
		if len(e) > n {
			t.Fatalf("re-encoding is longer (%d) than the input (%d)", len(e), n)
		}
	})
}

// FuzzReadFrame: a stream of frames (what a reader goroutine sees) never
// makes readFrame or decodeBatch panic, and every error is a protocol
// error, a version error or a clean end.
func FuzzReadFrame(f *testing.F) {
	ms := seedMessages()
	f.Add(frameBytes(false, ms...))
	f.Add(frameBytes(true, ms...))
	f.Add(append(frameBytes(false, ms[1]), frameBytes(true, &Message{Type: tData, Body: bytes.Repeat([]byte{1, 2, 3}, 100)})...))
	f.Add([]byte("TSYS\x02\x00\x00\x00\x00\x02\x0a\x00"))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		const maxFrame = 1 << 20
		br := bufio.NewReader(bytes.NewReader(b))
		var scratch frameScratch
		for {
			p, wire, err := readFrame(br, maxFrame, &scratch, nil)
			if err != nil {
				var ve *VersionError
				if err != io.EOF && !errors.Is(err, ErrProtocol) && !errors.As(err, &ve) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				return
			}
			if wire < headerLen || wire > headerLen+maxFrame || len(p) > maxFrame {
				t.Fatalf("wire %d, payload %d", wire, len(p))
			}
			if _, err := decodeBatch(p, func(*Message) error { return nil }); err != nil {
				if !errors.Is(err, ErrProtocol) || !errors.Is(err, ErrMalformed) && len(p) > 0 {
					t.Fatalf("unexpected batch error: %v", err)
				}
				return
			}
		}
	})
}
