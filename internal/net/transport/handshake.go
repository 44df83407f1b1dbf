package transport

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tsys-go/tsys/internal/wire"
)

// Handshake roles, part of what each side's proof covers.
const (
	roleDialer   byte = 'D'
	roleAcceptor byte = 'A'
)

const (
	nonceLen        = 32
	helloKeyed      = 1 // hello flag: the sender has a cluster key
	handshakeMaxLen = 4 << 10
	maxNameLen      = 1 << 10
	authDomain      = "tsys transport auth v1\x00"
)

// hello is the first message each side sends.
type hello struct {
	version uint64
	flags   uint64
	name    string
	nonce   []byte
}

func (h *hello) encode() []byte {
	b := wire.AppendUvarint(nil, h.version)
	b = wire.AppendUvarint(b, h.flags)
	b = wire.AppendString(b, h.name)
	return wire.AppendBytes(b, h.nonce)
}

// decodeHello reads a hello. Its version comes first, so that a peer of
// another version is named as such even if the rest of its hello is laid
// out otherwise.
func decodeHello(b []byte) (hello, error) {
	d := wire.NewDecoder(b)
	h := hello{version: d.Uvarint("version")}
	if d.Err() == nil && h.version != ProtocolVersion {
		return h, nil
	}
	h.flags = d.Uvarint("flags")
	h.name = d.String("node name", maxNameLen)
	h.nonce = d.Bytes("nonce", nonceLen)
	d.End("hello")
	return h, d.Err()
}

// Handshake errors, wrapped with the peer's address and name.
var (
	// ErrKeyMismatch: the peer's proof did not verify with our key.
	ErrKeyMismatch = errors.New("cluster keys differ")
	// ErrAuthMode: one side has a cluster key and the other none.
	ErrAuthMode = errors.New("authentication mode differs")
)

// proof is the HMAC-SHA256 by which the side of role proves that it holds
// key. It covers a domain string, the protocol version, the role (so that a
// proof made as acceptor can never pass as a dialer's, and vice versa: an
// attacker cannot reflect a node's proof back at it), both nonces in the
// prover's order (the verifier's fresh nonce makes every proof single-use)
// and both names, length-prefixed.
func proof(key []byte, role byte, peerNonce, ownNonce []byte, ownName, peerName string) []byte {
	h := hmac.New(sha256.New, key)
	var b []byte
	b = append(b, authDomain...)
	b = append(b, ProtocolVersion, role)
	b = append(b, peerNonce...)
	b = append(b, ownNonce...)
	b = binary.AppendUvarint(b, uint64(len(ownName)))
	b = append(b, ownName...)
	b = binary.AppendUvarint(b, uint64(len(peerName)))
	b = append(b, peerName...)
	h.Write(b)
	return h.Sum(nil)
}

// writeSingle writes a handshake message as a frame of its own.
func writeSingle(nc net.Conn, typ MsgType, body []byte) error {
	b := AppendMessage(make([]byte, headerLen, 128), &Message{Type: typ, Body: body})
	putHeader(b, 0, len(b)-headerLen)
	_, err := nc.Write(b)
	return err
}

// readSingle reads a frame that must hold exactly one message of type
// want, and returns its body.
func readSingle(br *bufio.Reader, want MsgType) ([]byte, error) {
	var scratch frameScratch
	p, _, err := readFrame(br, handshakeMaxLen, &scratch, nil)
	if err != nil {
		return nil, err
	}
	m, n, err := DecodeMessage(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	if n != len(p) {
		return nil, protoErr("%v frame holds more than one message", want)
	}
	if m.Type != want {
		return nil, protoErr("got %v, want %v", m.Type, want)
	}
	return m.Body, nil
}

// session is what a keyed handshake gives a connection: the sealers of
// the frames it will send and receive.
type session struct {
	send, recv *sealer
}

// handshake runs the handshake on a fresh connection and returns the peer's
// name and, with a key, the connection's session (otherwise an empty one).
// Both sides run the same steps:
//
//  1. send Hello{version, flags (keyed), name, nonce}
//  2. read the peer's Hello: check version, key mode, nonce
//  3. with a key: send Auth{Payload: proof(own role)}, read the peer's Auth
//     and check it against proof(peer role), and derive the session's keys
//
// It is interrupted by Close. An acceptor gives the peer's Hello the
// handshake timeout, and with a key the Auth, another round trip later,
// a fresh one; a dialler waits for the larger of it and
// dialHandshakeTimeout throughout.
func (t *Transport) handshake(nc net.Conn, br *bufio.Reader, role byte) (string, session, error) {
	timeout := t.cfg.HandshakeTimeout
	if role == roleDialer {
		timeout = max(timeout, dialHandshakeTimeout)
	}
	if err := nc.SetDeadline(time.Now().Add(timeout)); err != nil {
		return "", session{}, err
	}
	stop := context.AfterFunc(t.ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	var sess session
	keyed := len(t.cfg.Key) > 0
	nonce := make([]byte, nonceLen)
	rand.Read(nonce)
	own := hello{version: ProtocolVersion, name: t.cfg.Name, nonce: nonce}
	if keyed {
		own.flags = helloKeyed
	}
	if err := writeSingle(nc, msgHello, own.encode()); err != nil {
		return "", session{}, fmt.Errorf("send hello: %w", err)
	}
	body, err := readSingle(br, msgHello)
	if err != nil {
		if role == roleAcceptor {
			// The hint is for whoever gave a dialler the address: to
			// an acceptor, the connection is a stranger's.
			return "", session{}, fmt.Errorf("read hello: %w", err)
		}
		return "", session{}, fmt.Errorf("read hello: %w (%s)", err, helloHint(err, timeout))
	}
	ph, err := decodeHello(body)
	if err != nil {
		return "", session{}, fmt.Errorf("read hello: %w: %w", ErrProtocol, err)
	}
	peer := ph.name
	switch {
	case ph.version != ProtocolVersion:
		return "", session{}, &VersionError{Peer: int(min(ph.version, 1<<16)), Local: ProtocolVersion}
	case len(ph.nonce) != nonceLen:
		return "", session{}, protoErr("peer %q sent a nonce of %d bytes, want %d", peer, len(ph.nonce), nonceLen)
	case hmac.Equal(ph.nonce, nonce):
		return "", session{}, protoErr("peer %q echoed our nonce (reflected connection?)", peer)
	case ph.flags&^helloKeyed != 0:
		return "", session{}, protoErr("peer %q sent unknown hello flags %#x", peer, ph.flags)
	}
	peerKeyed := ph.flags&helloKeyed != 0
	if keyed != peerKeyed {
		if keyed {
			return peer, session{}, fmt.Errorf("peer %q has no cluster key, this node requires one: %w", peer, ErrAuthMode)
		}
		return peer, session{}, fmt.Errorf("peer %q uses a cluster key, this node has none: %w", peer, ErrAuthMode)
	}
	if keyed {
		peerRole := roleAcceptor
		if role == roleAcceptor {
			peerRole = roleDialer
			if err := nc.SetDeadline(time.Now().Add(timeout)); err != nil {
				return peer, session{}, err
			}
			if err := t.ctx.Err(); err != nil { // closed before the new deadline
				return peer, session{}, ErrClosed
			}
		}
		if err := writeSingle(nc, msgAuth, proof(t.cfg.Key, role, ph.nonce, nonce, t.cfg.Name, peer)); err != nil {
			return peer, session{}, fmt.Errorf("send auth: %w", err)
		}
		pa, err := readSingle(br, msgAuth)
		if err != nil {
			return peer, session{}, fmt.Errorf("read auth of peer %q: %w", peer, err)
		}
		want := proof(t.cfg.Key, peerRole, nonce, ph.nonce, peer, t.cfg.Name)
		if !hmac.Equal(pa, want) {
			return peer, session{}, fmt.Errorf("peer %q failed authentication: %w", peer, ErrKeyMismatch)
		}
		if role == roleDialer {
			d2a, a2d := sessionKeys(t.cfg.Key, nonce, ph.nonce, t.cfg.Name, peer)
			sess = session{send: newSealer(d2a), recv: newSealer(a2d)}
		} else {
			d2a, a2d := sessionKeys(t.cfg.Key, ph.nonce, nonce, peer, t.cfg.Name)
			sess = session{send: newSealer(a2d), recv: newSealer(d2a)}
		}
	}
	if err := nc.SetDeadline(time.Time{}); err != nil {
		return peer, session{}, err
	}
	return peer, sess, nil
}
