package transport

import (
	"fmt"

	"github.com/tsys-go/tsys/internal/wire"
)

// ProtocolVersion is the version of the wire format and the handshake. It is
// the second byte of every frame; a node refuses frames and peers of any
// other version, so it goes up with every change to the frame, to a message
// of the handshake or to package cluster's vocabulary.
const ProtocolVersion = 8

// MsgType tells what a Message means to the transport's user, which defines
// the types from FirstUserType on (package cluster keeps the vocabulary of
// tsys's nodes). Types below it belong to the transport's handshake. The
// zero value is invalid.
type MsgType uint8

const (
	msgHello MsgType = 1 // handshake: version, flags, node name, nonce
	msgAuth  MsgType = 2 // handshake: HMAC proof of the cluster key
	// FirstUserType is the first type Send accepts and the Handler sees.
	FirstUserType MsgType = 3
)

func (t MsgType) String() string {
	switch t {
	case msgHello:
		return "Hello"
	case msgAuth:
		return "Auth"
	}
	return fmt.Sprintf("type %d", uint8(t))
}

// MaxBody bounds the body of a message (MaxFrame bounds it too).
const MaxBody = 64 << 20

// ErrMalformed is wrapped by every error of DecodeMessage.
var ErrMalformed = wire.ErrMalformed

// Message is the unit the transport moves: a type and a body that the
// transport's user encodes and decodes. The transport reads neither; it
// frames, batches, compresses and delivers messages in order per peer.
type Message struct {
	Type MsgType
	Body []byte

	// via is the route of the connection a received message came on
	// (see ReplyAddr); 0 for a message not received.
	via uint64
}

// Validate reports why m cannot be sent (a handshake or zero type, a body
// over MaxBody), or nil. Send calls it.
func (m *Message) Validate() error {
	switch {
	case m.Type == 0:
		return fmt.Errorf("transport: message type 0 is invalid")
	case m.Type < FirstUserType:
		return fmt.Errorf("transport: %v is a handshake message, sent only by the transport", m.Type)
	case len(m.Body) > MaxBody:
		return fmt.Errorf("transport: %v: body of %d bytes exceeds %d", m.Type, len(m.Body), MaxBody)
	}
	return nil
}

// AppendMessage appends the encoding of m to dst and returns the extended
// slice: the type in one byte, then the body with its length (uvarint).
func AppendMessage(dst []byte, m *Message) []byte {
	dst = append(dst, byte(m.Type))
	return wire.AppendBytes(dst, m.Body)
}

// DecodeMessage decodes the Message at the start of b and returns it with
// the number of bytes it took. Body aliases b. It returns an error wrapping
// ErrMalformed, and never panics, when b is truncated, the type is zero, or
// the body exceeds MaxBody.
func DecodeMessage(b []byte) (Message, int, error) {
	if len(b) == 0 {
		return Message{}, 0, fmt.Errorf("%w: empty message", ErrMalformed)
	}
	m := Message{Type: MsgType(b[0])}
	if m.Type == 0 {
		return Message{}, 0, fmt.Errorf("%w: message type 0", ErrMalformed)
	}
	d := wire.NewDecoder(b[1:])
	m.Body = d.Bytes("body", MaxBody)
	if err := d.Err(); err != nil {
		return Message{}, 0, fmt.Errorf("%v: %w", m.Type, err)
	}
	return m, 1 + d.Offset(), nil
}
