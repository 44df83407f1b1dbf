package transport

import (
	"github.com/tsys-go/tsys/internal/wire"
)

// The tests' own message vocabulary: the transport carries bodies it does
// not read, so the tests give theirs a few fields to check order and
// integrity with.
const (
	tPing MsgType = FirstUserType + iota
	tRequest
	tReply
	tData
)

// testMessage is a message of the tests' vocabulary.
type testMessage struct {
	Type    MsgType
	Job, ID uint64
	Count   int32
	Payload []byte
}

// msg encodes m as a transport Message.
func (m testMessage) msg() *Message {
	b := wire.AppendUvarint(nil, m.Job)
	b = wire.AppendUvarint(b, m.ID)
	b = wire.AppendVarint(b, int64(m.Count))
	b = wire.AppendBytes(b, m.Payload)
	return &Message{Type: m.Type, Body: b}
}

// readTest decodes a Message of the tests' vocabulary (the zero
// testMessage of its type if the body is not one).
func readTest(m *Message) testMessage {
	d := wire.NewDecoder(m.Body)
	t := testMessage{Type: m.Type, Job: d.Uvarint("job"), ID: d.Uvarint("id"), Count: d.Int32("count"), Payload: d.Bytes("payload", MaxBody)}
	if d.Err() != nil {
		return testMessage{Type: m.Type}
	}
	return t
}
