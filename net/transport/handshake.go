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
)

// Handshake roles, part of what each side's proof covers.
const (
	roleDialer   byte = 'D'
	roleAcceptor byte = 'A'
)

const (
	nonceLen        = 32
	helloKeyed      = 1 // Hello.ID bit: the sender has a cluster key
	handshakeMaxLen = 4 << 10
	authDomain      = "tsys transport auth v1\x00"
)

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

// writeSingle writes m as a frame of its own.
func writeSingle(nc net.Conn, m *Message) error {
	b := AppendMessage(make([]byte, headerLen, 128), m)
	putHeader(b, 0, len(b)-headerLen)
	_, err := nc.Write(b)
	return err
}

// readSingle reads a frame that must hold exactly one message of type want.
func readSingle(br *bufio.Reader, want MsgType) (Message, error) {
	var scratch []byte
	p, _, err := readFrame(br, handshakeMaxLen, &scratch)
	if err != nil {
		return Message{}, err
	}
	m, n, err := DecodeMessage(p)
	if err != nil {
		return Message{}, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	if n != len(p) {
		return Message{}, protoErr("%v frame holds more than one message", want)
	}
	if m.Type != want {
		return Message{}, protoErr("got %v, want %v", m.Type, want)
	}
	return m, nil
}

// handshake runs the handshake on a fresh connection and returns the peer's
// name. Both sides run the same steps:
//
//  1. send Hello{Count: version, Kind: name, Payload: nonce, ID: keyed bit}
//  2. read the peer's Hello: check version, key mode, nonce
//  3. with a key: send Auth{Payload: proof(own role)}, read the peer's Auth
//     and check it against proof(peer role)
//
// It is bounded by the handshake timeout and interrupted by Close.
func (t *Transport) handshake(nc net.Conn, br *bufio.Reader, role byte) (string, error) {
	if err := nc.SetDeadline(time.Now().Add(t.cfg.HandshakeTimeout)); err != nil {
		return "", err
	}
	stop := context.AfterFunc(t.ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	keyed := len(t.cfg.Key) > 0
	nonce := make([]byte, nonceLen)
	rand.Read(nonce)
	hello := Message{Type: MsgHello, Count: ProtocolVersion, Kind: t.cfg.Name, Payload: nonce}
	if keyed {
		hello.ID = helloKeyed
	}
	if err := writeSingle(nc, &hello); err != nil {
		return "", fmt.Errorf("send hello: %w", err)
	}
	ph, err := readSingle(br, MsgHello)
	if err != nil {
		return "", fmt.Errorf("read hello: %w", err)
	}
	peer := ph.Kind
	switch {
	case ph.Count != ProtocolVersion:
		return "", &VersionError{Peer: int(ph.Count), Local: ProtocolVersion}
	case len(ph.Payload) != nonceLen:
		return "", protoErr("peer %q sent a nonce of %d bytes, want %d", peer, len(ph.Payload), nonceLen)
	case hmac.Equal(ph.Payload, nonce):
		return "", protoErr("peer %q echoed our nonce (reflected connection?)", peer)
	case ph.ID&^helloKeyed != 0:
		return "", protoErr("peer %q sent unknown hello flags %#x", peer, ph.ID)
	}
	peerKeyed := ph.ID&helloKeyed != 0
	if keyed != peerKeyed {
		if keyed {
			return peer, fmt.Errorf("peer %q has no cluster key, this node requires one: %w", peer, ErrAuthMode)
		}
		return peer, fmt.Errorf("peer %q uses a cluster key, this node has none: %w", peer, ErrAuthMode)
	}
	if keyed {
		peerRole := roleAcceptor
		if role == roleAcceptor {
			peerRole = roleDialer
		}
		auth := Message{Type: MsgAuth, Payload: proof(t.cfg.Key, role, ph.Payload, nonce, t.cfg.Name, peer)}
		if err := writeSingle(nc, &auth); err != nil {
			return peer, fmt.Errorf("send auth: %w", err)
		}
		pa, err := readSingle(br, MsgAuth)
		if err != nil {
			return peer, fmt.Errorf("read auth of peer %q: %w", peer, err)
		}
		want := proof(t.cfg.Key, peerRole, nonce, ph.Payload, peer, t.cfg.Name)
		if !hmac.Equal(pa.Payload, want) {
			return peer, fmt.Errorf("peer %q failed authentication: %w", peer, ErrKeyMismatch)
		}
	}
	if err := nc.SetDeadline(time.Time{}); err != nil {
		return peer, err
	}
	return peer, nil
}
