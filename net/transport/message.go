package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ProtocolVersion is the version of the wire format and the handshake. It is
// the second byte of every frame; a node refuses frames and peers of any
// other version.
const ProtocolVersion = 1

// MsgType tells what a Message means. The zero value is invalid.
type MsgType uint8

// Message types. MsgHello and MsgAuth belong to the handshake and are
// handled by the transport itself: Send refuses them and a peer that sends
// one after the handshake is disconnected. Every other type is passed to the
// Handler.
const (
	MsgHello        MsgType = 1  // handshake: version, node name, nonce
	MsgAuth         MsgType = 2  // handshake: HMAC proof of the cluster key
	MsgStealRequest MsgType = 3  // a thief asks for Count tasks of Job
	MsgStealReply   MsgType = 4  // the victim lends Tasks (none = refusal)
	MsgResult       MsgType = 5  // the result (Payload) or error (Err) of task ID
	MsgJobStart     MsgType = 6  // a job begins
	MsgJobEnd       MsgType = 7  // a job is done
	MsgJobFailed    MsgType = 8  // a job failed with Err
	MsgShutdown     MsgType = 9  // the peer is leaving
	MsgPing         MsgType = 10 // liveness probe, no meaning to the transport
	MsgLoad         MsgType = 11 // the sender's load in Count

	maxMsgType = MsgLoad
)

var msgTypeNames = [...]string{
	MsgHello:        "Hello",
	MsgAuth:         "Auth",
	MsgStealRequest: "StealRequest",
	MsgStealReply:   "StealReply",
	MsgResult:       "Result",
	MsgJobStart:     "JobStart",
	MsgJobEnd:       "JobEnd",
	MsgJobFailed:    "JobFailed",
	MsgShutdown:     "Shutdown",
	MsgPing:         "Ping",
	MsgLoad:         "Load",
}

func (t MsgType) String() string {
	if t >= 1 && t <= maxMsgType {
		return msgTypeNames[t]
	}
	return fmt.Sprintf("MsgType(%d)", uint8(t))
}

// Valid reports whether t is a known message type.
func (t MsgType) Valid() bool { return t >= 1 && t <= maxMsgType }

// Limits on the fields of a Message, enforced by DecodeMessage (so a peer
// cannot make a node allocate without bound) and by Send.
const (
	MaxTasks     = 1 << 16  // tasks in one StealReply
	MaxStringLen = 1 << 10  // bytes of Kind and of a TaskRecord's Kind
	MaxErrLen    = 4 << 10  // bytes of Err; AppendMessage truncates longer texts
	MaxPayload   = 64 << 20 // bytes of Payload and of a TaskRecord's Arg
)

// TaskRecord is one task lent in a StealReply.
type TaskRecord struct {
	ID   uint64
	Kind string
	Arg  []byte
}

// Message is the unit the transport moves. Which fields mean something
// depends on Type; unused fields are left zero and cost nothing on the wire.
type Message struct {
	Type    MsgType
	Job     uint64       // job id
	ID      uint64       // request id or task id
	Count   int32        // e.g. tasks wanted; a load number
	Kind    string       // e.g. a task kind name in an error
	Payload []byte       // e.g. an encoded result
	Tasks   []TaskRecord // StealReply: the lent tasks (empty = refusal)
	Err     string       // Result/JobFailed: an error text
}

// Field-presence bits, the second byte of an encoded Message.
const (
	fJob byte = 1 << iota
	fID
	fCount
	fKind
	fPayload
	fTasks
	fErr
	fAll = fJob | fID | fCount | fKind | fPayload | fTasks | fErr
)

// Validate reports why m cannot be sent (unknown or handshake type, a field
// over its limit), or nil. Send calls it; Err is never a reason, since
// AppendMessage truncates it.
func (m *Message) Validate() error {
	switch {
	case !m.Type.Valid():
		return fmt.Errorf("transport: unknown message type %d", uint8(m.Type))
	case m.Type == MsgHello || m.Type == MsgAuth:
		return fmt.Errorf("transport: %v is a handshake message, sent only by the transport", m.Type)
	case len(m.Kind) > MaxStringLen:
		return fmt.Errorf("transport: %v: Kind of %d bytes exceeds %d", m.Type, len(m.Kind), MaxStringLen)
	case len(m.Payload) > MaxPayload:
		return fmt.Errorf("transport: %v: payload of %d bytes exceeds %d", m.Type, len(m.Payload), MaxPayload)
	case len(m.Tasks) > MaxTasks:
		return fmt.Errorf("transport: %v: %d tasks exceed %d", m.Type, len(m.Tasks), MaxTasks)
	}
	for i := range m.Tasks {
		tr := &m.Tasks[i]
		if len(tr.Kind) > MaxStringLen {
			return fmt.Errorf("transport: %v: task %d: Kind of %d bytes exceeds %d", m.Type, tr.ID, len(tr.Kind), MaxStringLen)
		}
		if len(tr.Arg) > MaxPayload {
			return fmt.Errorf("transport: %v: task %d: argument of %d bytes exceeds %d", m.Type, tr.ID, len(tr.Arg), MaxPayload)
		}
	}
	return nil
}

// AppendMessage appends the encoding of m to dst and returns the extended
// slice:
//
//	type     1 byte
//	fields   1 byte, a bit per present field (Job, ID, Count, Kind, Payload, Tasks, Err)
//	Job      uvarint            if present
//	ID       uvarint            if present
//	Count    zigzag varint      if present
//	Kind     uvarint len, bytes if present
//	Payload  uvarint len, bytes if present
//	Tasks    uvarint n, then n x (ID uvarint, Kind uvarint len + bytes, Arg uvarint len + bytes)
//	Err      uvarint len, bytes if present
//
// A field is present when it is not zero (not empty). It encodes m as it is,
// whatever its limits (see Validate), except Err, which is cut to MaxErrLen
// bytes (at a UTF-8 boundary).
func AppendMessage(dst []byte, m *Message) []byte {
	var f byte
	if m.Job != 0 {
		f |= fJob
	}
	if m.ID != 0 {
		f |= fID
	}
	if m.Count != 0 {
		f |= fCount
	}
	if m.Kind != "" {
		f |= fKind
	}
	if len(m.Payload) != 0 {
		f |= fPayload
	}
	if len(m.Tasks) != 0 {
		f |= fTasks
	}
	if m.Err != "" {
		f |= fErr
	}
	dst = append(dst, byte(m.Type), f)
	if f&fJob != 0 {
		dst = binary.AppendUvarint(dst, m.Job)
	}
	if f&fID != 0 {
		dst = binary.AppendUvarint(dst, m.ID)
	}
	if f&fCount != 0 {
		dst = binary.AppendVarint(dst, int64(m.Count))
	}
	if f&fKind != 0 {
		dst = appendString(dst, m.Kind)
	}
	if f&fPayload != 0 {
		dst = binary.AppendUvarint(dst, uint64(len(m.Payload)))
		dst = append(dst, m.Payload...)
	}
	if f&fTasks != 0 {
		dst = binary.AppendUvarint(dst, uint64(len(m.Tasks)))
		for i := range m.Tasks {
			tr := &m.Tasks[i]
			dst = binary.AppendUvarint(dst, tr.ID)
			dst = appendString(dst, tr.Kind)
			dst = binary.AppendUvarint(dst, uint64(len(tr.Arg)))
			dst = append(dst, tr.Arg...)
		}
	}
	if f&fErr != 0 {
		dst = appendString(dst, truncateUTF8(m.Err, MaxErrLen))
	}
	return dst
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// truncateUTF8 cuts s to at most n bytes without splitting a rune (if s is
// valid UTF-8 there).
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && i > n-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// ErrMalformed is wrapped by every error of DecodeMessage.
var ErrMalformed = errors.New("malformed message")

type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%s (at byte %d)", fmt.Sprintf(format, args...), d.off)
	}
}

func (d *decoder) uvarint(what string) uint64 { return d.uvarint2(what, "") }

// uvarint2 reads a uvarint named what+suffix in errors (two strings, so
// that no name is built when nothing fails).
func (d *decoder) uvarint2(what, suffix string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		if n == 0 {
			d.fail("truncated %s%s", what, suffix)
		} else {
			d.fail("%s%s overflows 64 bits", what, suffix)
		}
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		if n == 0 {
			d.fail("truncated %s", what)
		} else {
			d.fail("%s overflows 64 bits", what)
		}
		return 0
	}
	d.off += n
	return v
}

// bytes reads a length-prefixed field of at most limit bytes; the result
// aliases the input.
func (d *decoder) bytes(what string, limit int) []byte {
	l := d.uvarint2(what, " length")
	if d.err != nil {
		return nil
	}
	if l > uint64(limit) {
		d.fail("%s of %d bytes exceeds limit %d", what, l, limit)
		return nil
	}
	if l > uint64(len(d.b)-d.off) {
		d.fail("truncated %s: %d bytes announced, %d left", what, l, len(d.b)-d.off)
		return nil
	}
	s := d.b[d.off : d.off+int(l) : d.off+int(l)]
	d.off += int(l)
	if l == 0 {
		return nil
	}
	return s
}

// DecodeMessage decodes the Message at the start of b and returns it with
// the number of bytes it took. Payload and the tasks' Arg alias b; strings
// are copied. It returns an error wrapping ErrMalformed, and never panics,
// when b is truncated, the type is unknown, unknown field bits are set, a
// number overflows, or a field exceeds its limit (MaxTasks, MaxStringLen,
// MaxErrLen, MaxPayload).
func DecodeMessage(b []byte) (Message, int, error) {
	var m Message
	d := decoder{b: b}
	if len(b) < 2 {
		return Message{}, 0, fmt.Errorf("%w: truncated header: %d bytes", ErrMalformed, len(b))
	}
	m.Type = MsgType(b[0])
	if !m.Type.Valid() {
		return Message{}, 0, fmt.Errorf("%w: unknown message type %d", ErrMalformed, b[0])
	}
	f := b[1]
	if f&^fAll != 0 {
		return Message{}, 0, fmt.Errorf("%w: %v: unknown field bits %#x", ErrMalformed, m.Type, f&^fAll)
	}
	d.off = 2
	if f&fJob != 0 {
		m.Job = d.uvarint("job id")
	}
	if f&fID != 0 {
		m.ID = d.uvarint("id")
	}
	if f&fCount != 0 {
		c := d.varint("count")
		if d.err == nil && (c < -1<<31 || c > 1<<31-1) {
			d.fail("count %d overflows 32 bits", c)
		}
		m.Count = int32(c)
	}
	if f&fKind != 0 {
		m.Kind = string(d.bytes("kind", MaxStringLen))
	}
	if f&fPayload != 0 {
		m.Payload = d.bytes("payload", MaxPayload)
	}
	if f&fTasks != 0 {
		n := d.uvarint("task count")
		if d.err == nil && n > MaxTasks {
			d.fail("%d tasks exceed limit %d", n, MaxTasks)
		}
		if d.err == nil {
			// Each task takes at least 3 bytes: do not let a short
			// input make us allocate for 65536 tasks.
			m.Tasks = make([]TaskRecord, 0, min(int(n), (len(b)-d.off)/3))
			prevKind := ""
			for i := uint64(0); i < n && d.err == nil; i++ {
				var tr TaskRecord
				tr.ID = d.uvarint("task id")
				if k := d.bytes("task kind", MaxStringLen); string(k) == prevKind {
					tr.Kind = prevKind // tasks of one kind share the string
				} else {
					tr.Kind = string(k)
					prevKind = tr.Kind
				}
				tr.Arg = d.bytes("task argument", MaxPayload)
				m.Tasks = append(m.Tasks, tr)
			}
		}
	}
	if f&fErr != 0 {
		m.Err = string(d.bytes("error text", MaxErrLen))
	}
	if d.err != nil {
		return Message{}, 0, fmt.Errorf("%w: %v: %v", ErrMalformed, m.Type, d.err)
	}
	return m, d.off, nil
}
