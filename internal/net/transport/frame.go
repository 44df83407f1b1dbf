package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/klauspost/compress/s2"
)

// Frame header: magic, version, flags, big-endian payload length.
const (
	frameMagic     = "TSYS"
	headerLen      = 10
	flagCompressed = 1 << 0
	flagSealed     = 1 << 1
	knownFlags     = flagCompressed | flagSealed
)

// ErrProtocol is wrapped by the errors of frames that break the wire format
// (wrong magic, unknown flags, oversized, truncated, corrupt compressed
// data) and of messages that do not decode.
var ErrProtocol = errors.New("protocol error")

// VersionError reports a peer of another protocol version.
type VersionError struct {
	Peer, Local int
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("peer speaks tsys protocol v%d, this node v%d", e.Peer, e.Local)
}

// ErrNotTsys is wrapped, beside ErrProtocol, by the error of a peer
// whose first bytes are not a tsys frame's: the address of something
// else, such as a node's gossip or --http address.
var ErrNotTsys = errors.New("not a tsys peer")

// badMagic is the error of a frame that does not begin with frameMagic.
type badMagic struct{ got string }

func (e badMagic) Error() string {
	return fmt.Sprintf("%v: bad magic %q (want %q): %v", ErrProtocol, e.got, frameMagic, ErrNotTsys)
}

func (e badMagic) Unwrap() []error { return []error{ErrProtocol, ErrNotTsys} }

// http reports whether the peer answered in HTTP ("HTTP/1.1 400 Bad
// Request" to a Hello).
func (e badMagic) http() bool { return e.got == "HTTP" }

func protoErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrProtocol, fmt.Sprintf(format, args...))
}

// putHeader writes a frame header for a payload of n bytes into b[:headerLen].
func putHeader(b []byte, flags byte, n int) {
	copy(b, frameMagic)
	b[4] = ProtocolVersion
	b[5] = flags
	binary.BigEndian.PutUint32(b[6:headerLen], uint32(n))
}

// frameScratch is what a reader reuses from frame to frame: the header
// (read into memory the reader already holds, so that a frame's only
// allocation is its payload, which the messages keep) and the compressed
// bytes.
type frameScratch struct {
	h [headerLen]byte
	z []byte
}

// readFrame reads one frame from r and returns its payload, opened (with
// open, which a keyed connection has after its handshake: then every frame
// must be sealed, and otherwise none may be) and decompressed, and the
// frame's size on the wire. The payload is a fresh slice (messages decoded
// from it may alias it); scratch is reused for the header and compressed
// bytes. maxFrame
// bounds the length in the header (less a sealed frame's tag) and the
// decompressed size. Every failure is an error wrapping ErrProtocol, a
// *VersionError, or the error of r (io.EOF when r ends cleanly before a
// frame).
func readFrame(r io.Reader, maxFrame int, s *frameScratch, open *sealer) (payload []byte, wire int, err error) {
	h := &s.h
	if n, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, 0, protoErr("truncated frame header (%d of %d bytes)", n, headerLen)
		}
		return nil, 0, err
	}
	if string(h[:4]) != frameMagic {
		return nil, 0, badMagic{string(h[:4])}
	}
	if h[4] != ProtocolVersion {
		return nil, 0, &VersionError{Peer: int(h[4]), Local: ProtocolVersion}
	}
	flags := h[5]
	if flags&^knownFlags != 0 {
		return nil, 0, protoErr("unknown frame flags %#x", flags)
	}
	limit := maxFrame
	switch sealed := flags&flagSealed != 0; {
	case sealed && open == nil:
		return nil, 0, protoErr("sealed frame where none is expected (in a handshake, or on a connection without a cluster key)")
	case !sealed && open != nil:
		return nil, 0, protoErr("frame not sealed on a connection with a cluster key")
	case sealed:
		limit += sealTagLen
	}
	n := binary.BigEndian.Uint32(h[6:])
	if uint64(n) > uint64(limit) {
		return nil, 0, protoErr("frame length %d exceeds limit %d", n, limit)
	}
	wire = headerLen + int(n)
	if flags&flagCompressed == 0 {
		payload, err = readN(r, int(n), nil)
		if err == nil && open != nil {
			payload, err = open.open(h[:], payload)
		}
		return payload, wire, err
	}
	s.z, err = readN(r, int(n), s.z[:0])
	if err != nil {
		return nil, 0, err
	}
	z := s.z
	if open != nil {
		if z, err = open.open(h[:], z); err != nil {
			return nil, 0, err
		}
	}
	dl, err := s2.DecodedLen(z)
	if err != nil {
		return nil, 0, protoErr("corrupt compressed payload: %v", err)
	}
	if dl > maxFrame {
		return nil, 0, protoErr("decompressed length %d exceeds limit %d", dl, maxFrame)
	}
	payload, err = s2.Decode(make([]byte, dl), z)
	if err != nil {
		return nil, 0, protoErr("corrupt compressed payload: %v", err)
	}
	return payload, wire, nil
}

// readN reads exactly n bytes appended to buf. It grows the buffer as data
// arrives rather than trusting n up front, so a peer that announces a large
// frame and sends little costs little memory.
func readN(r io.Reader, n int, buf []byte) ([]byte, error) {
	const step = 1 << 20
	if n <= step || cap(buf) >= n {
		buf = slices.Grow(buf[:0], n)[:n]
		if got, err := io.ReadFull(r, buf); err != nil {
			return nil, truncated(got, n, err)
		}
		return buf, nil
	}
	buf = buf[:0]
	for len(buf) < n {
		k := min(n-len(buf), max(len(buf), step))
		buf = slices.Grow(buf, k)
		got, err := io.ReadFull(r, buf[len(buf):len(buf)+k])
		if err != nil {
			return nil, truncated(len(buf)+got, n, err)
		}
		buf = buf[:len(buf)+k]
	}
	return buf, nil
}

func truncated(got, want int, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return protoErr("truncated frame: %d of %d payload bytes before end of stream", got, want)
	}
	return err
}

// decodeBatch decodes the messages of a frame payload, calling f for each.
// It stops at the first error.
func decodeBatch(p []byte, f func(*Message) error) (int, error) {
	n := 0
	if len(p) == 0 {
		return 0, protoErr("empty frame")
	}
	for len(p) > 0 {
		m, k, err := DecodeMessage(p)
		if err != nil {
			return n, fmt.Errorf("%w: message %d of frame: %w", ErrProtocol, n+1, err)
		}
		p = p[k:]
		n++
		if err := f(&m); err != nil {
			return n, err
		}
	}
	return n, nil
}
