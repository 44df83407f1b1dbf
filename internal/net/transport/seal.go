package transport

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Sealing: with a cluster key, every frame after the handshake is
// encrypted and authenticated with AES-256-GCM, under a key of its own for
// each direction of each connection; see the package documentation,
// "Encryption".
const (
	sealTagLen   = 16 // GCM's tag, at the end of a sealed payload
	sealKeyLen   = 32 // AES-256
	sessionLabel = "tsys transport session v1\x00"
	rekeyLabel   = "tsys transport rekey v1"
	// rekeyBytes is how much one key seals before both ends replace it,
	// in step, by a key derived from it: AES-GCM's margin against a
	// forgery or a distinguisher shrinks with the square of the data
	// under one key, and this is less than TLS 1.3 lets one key seal.
	rekeyBytes = 1 << 36
)

// sessionKeys derives the keys of a connection's two directions, dialler
// to acceptor and acceptor to dialler, from the cluster key and what the
// handshake exchanged: both nonces (fresh from each side, so neither side
// ever sees a key it has seen before, whatever the other sends), both
// names and the protocol version. The label of each direction makes the
// two keys independent, so a frame reflected back at its sender does not
// open.
func sessionKeys(clusterKey, dialerNonce, acceptorNonce []byte, dialer, acceptor string) (d2a, a2d []byte) {
	salt := append(append([]byte(nil), dialerNonce...), acceptorNonce...)
	info := []byte(sessionLabel)
	info = append(info, ProtocolVersion)
	info = binary.AppendUvarint(info, uint64(len(dialer)))
	info = append(info, dialer...)
	info = binary.AppendUvarint(info, uint64(len(acceptor)))
	info = append(info, acceptor...)
	prk, err := hkdf.Extract(sha256.New, clusterKey, salt)
	if err != nil {
		panic(err) // HMAC-SHA256 takes any key
	}
	d2a = mustExpand(prk, string(info)+"D->A")
	a2d = mustExpand(prk, string(info)+"A->D")
	return d2a, a2d
}

func mustExpand(prk []byte, info string) []byte {
	k, err := hkdf.Expand(sha256.New, prk, info, sealKeyLen)
	if err != nil {
		panic(err) // only for lengths over 255 hashes
	}
	return k
}

// sealer seals or opens the frames of one direction of a connection, in
// order: frame i is sealed with the nonce i (96 bits, big-endian), so a
// frame replayed, reordered, dropped or from another connection does not
// open. The two ends keep the same count, and replace the key at the same
// frame.
type sealer struct {
	key   []byte
	aead  cipher.AEAD
	seq   uint64 // the next frame's nonce
	bytes uint64 // sealed under this key
	nonce [12]byte
}

func newSealer(key []byte) *sealer {
	s := &sealer{key: key}
	s.setKey(key)
	return s
}

func (s *sealer) setKey(key []byte) {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // 32 bytes always make a cipher
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	s.key, s.aead, s.bytes = key, aead, 0
}

// errSealExhausted: a direction has sealed as many frames as its nonces
// can count. No connection lives that long; if one did, it is closed, and
// the next Send dials a new one with new keys.
var errSealExhausted = errors.New("sealed frame counter exhausted (the connection is closed; the next send dials a new one)")

// next returns the nonce of the next frame, or errSealExhausted.
func (s *sealer) next() ([]byte, error) {
	if s.seq == math.MaxUint64 {
		return nil, errSealExhausted
	}
	binary.BigEndian.PutUint64(s.nonce[4:], s.seq)
	s.seq++
	return s.nonce[:], nil
}

// advance counts a frame's n bytes, replacing the key when it has sealed
// rekeyBytes.
func (s *sealer) advance(n int) {
	s.bytes += uint64(n)
	if s.bytes >= rekeyBytes {
		s.setKey(mustExpand(s.key, rekeyLabel))
	}
}

// seal seals frame, a header (already saying sealed, with the length of
// the sealed payload) followed by the payload, in place: it returns the
// frame with the payload encrypted and the tag appended, reallocated only
// if frame has no room for the tag.
func (s *sealer) seal(frame []byte) ([]byte, error) {
	nonce, err := s.next()
	if err != nil {
		return nil, err
	}
	if cap(frame)-len(frame) < sealTagLen {
		frame = append(make([]byte, 0, len(frame)+sealTagLen), frame...)
	}
	p := frame[headerLen:]
	out := s.aead.Seal(p[:0], nonce, p, frame[:headerLen])
	s.advance(len(p))
	return frame[:headerLen+len(out)], nil
}

// open opens a sealed payload in place, header being its frame's header,
// and returns the plaintext, or a protocol error.
func (s *sealer) open(header, sealed []byte) ([]byte, error) {
	if len(sealed) < sealTagLen {
		return nil, protoErr("sealed frame of %d bytes is shorter than its %d-byte tag", len(sealed), sealTagLen)
	}
	nonce, err := s.next()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	p, err := s.aead.Open(sealed[:0], nonce, sealed, header)
	if err != nil {
		return nil, protoErr("sealed frame %d does not open: altered, replayed, reordered or not from the peer", s.seq-1)
	}
	s.advance(len(p))
	return p, nil
}
