package membership

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/transport"
	"math"
)

// ProtocolVersion is the tsys wire protocol version this build speaks:
// net/transport's, so that gossip refuses a peer the transport would. A
// node whose metadata carries another version is refused (see doc.go).
const ProtocolVersion = transport.ProtocolVersion

// MaxMetaSize is the largest encoded Meta memberlist accepts (its
// MetaMaxSize).
const MaxMetaSize = 512

// metaMagic is the first byte of every encoded Meta. It tells a tsys node
// apart from some other memberlist user that found its way into the cluster.
const metaMagic = 'T'

// Load is the node's load as the scheduler measures it (clusterpolicy.Load),
// gossiped in its metadata: counts as int32, the rate as float32.
type Load = clusterpolicy.Load

// Meta is the metadata a node gossips about itself.
//
// Encoding (all integers little endian):
//
//	byte 0      'T' (magic)
//	byte 1      Version
//	uvarint     len(Transport), then its bytes
//	uvarint     len(Zone), then its bytes
//	4 bytes     Load.Ready    (int32)
//	4 bytes     Load.Workers  (int32)
//	4 bytes     Load.Idle     (int32)
//	4 bytes     Load.Rate     (float32 bits)
//	[1 byte]    flags, internal (bit 0: the node is leaving); absent = 0
//	[uvarint]   len(Scheduler), then its bytes; absent = "" (after the flags,
//	            which are then written even when 0)
//	[uvarint]   len(Share), then its bytes; absent = "" (after the scheduler,
//	            which is then written even when "")
//	[1 byte]    Client (0 or 1); absent = false (after the share)
//
// The version is the second byte so that any future layout can still be read
// far enough to report a version mismatch. Bytes after the scheduler are ignored
// (room for fields a later version may append).
type Meta struct {
	Transport string // task-transport address (host:port) of the node
	Zone      string // free-form locality label
	Version   uint8  // protocol version; 0 in Config means ProtocolVersion
	Load      Load
	// Scheduler names the node's scheduler (its policy's Name), so that
	// a job is not begun across nodes that schedule differently.
	Scheduler string
	// Share names how the node shares its workers between jobs (package
	// share), so that a job is not begun across nodes whose choices would
	// not agree; Client marks a node that only roots its own jobs (tsys
	// run), which the sharing policies do not count among the nodes.
	Share  string
	Client bool
}

// ErrMetaTooLarge is returned when a Meta does not fit in MaxMetaSize bytes.
var ErrMetaTooLarge = errors.New("membership: metadata too large (encoded, it must stay under 512 bytes)")

// ErrBadMeta is wrapped by every metadata decoding error.
var ErrBadMeta = errors.New("membership: bad metadata")

// flagLeaving marks a node that called Leave: its coming departure is
// graceful.
const flagLeaving = 1

// MarshalBinary encodes m compactly. It fails only if the result would be
// larger than MaxMetaSize.
func (m Meta) MarshalBinary() ([]byte, error) { return encodeMeta(m, 0) }

func encodeMeta(m Meta, flags byte) ([]byte, error) {
	n := 2 + binary.MaxVarintLen64*4 + len(m.Transport) + len(m.Zone) + len(m.Scheduler) + len(m.Share) + 18
	b := make([]byte, 0, n)
	b = append(b, metaMagic, m.Version)
	b = binary.AppendUvarint(b, uint64(len(m.Transport)))
	b = append(b, m.Transport...)
	b = binary.AppendUvarint(b, uint64(len(m.Zone)))
	b = append(b, m.Zone...)
	b = binary.LittleEndian.AppendUint32(b, wireCount(m.Load.Ready))
	b = binary.LittleEndian.AppendUint32(b, wireCount(m.Load.Workers))
	b = binary.LittleEndian.AppendUint32(b, wireCount(m.Load.Idle))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(m.Load.Rate)))
	tail := m.Share != "" || m.Client
	if flags != 0 || m.Scheduler != "" || tail {
		b = append(b, flags)
	}
	if m.Scheduler != "" || tail {
		b = binary.AppendUvarint(b, uint64(len(m.Scheduler)))
		b = append(b, m.Scheduler...)
	}
	if tail {
		b = binary.AppendUvarint(b, uint64(len(m.Share)))
		b = append(b, m.Share...)
		client := byte(0)
		if m.Client {
			client = 1
		}
		b = append(b, client)
	}
	// One byte stays free for the flags, so that Leave can always mark the
	// node as leaving.
	if len(b) > MaxMetaSize || (flags == 0 && len(b) == MaxMetaSize) {
		return nil, fmt.Errorf("%w (%d bytes: transport %d, zone %d)", ErrMetaTooLarge, len(b), len(m.Transport), len(m.Zone))
	}
	return b, nil
}

// UnmarshalBinary decodes b into m. It never panics; malformed input yields
// an error wrapping ErrBadMeta and leaves m unchanged.
func (m *Meta) UnmarshalBinary(b []byte) error {
	out, _, err := decodeMeta(b)
	if err != nil {
		return err
	}
	*m = out
	return nil
}

func decodeMeta(b []byte) (Meta, byte, error) {
	var out Meta
	if len(b) == 0 {
		return out, 0, fmt.Errorf("%w: empty", ErrBadMeta)
	}
	if b[0] != metaMagic {
		return out, 0, fmt.Errorf("%w: not a tsys node (first byte 0x%02x)", ErrBadMeta, b[0])
	}
	if len(b) < 2 {
		return out, 0, fmt.Errorf("%w: truncated before version", ErrBadMeta)
	}
	out.Version = b[1]
	rest := b[2:]
	str := func(field string) (string, error) {
		n, k := binary.Uvarint(rest)
		if k <= 0 {
			return "", fmt.Errorf("%w: bad %s length", ErrBadMeta, field)
		}
		rest = rest[k:]
		if n > uint64(len(rest)) {
			return "", fmt.Errorf("%w: %s length %d exceeds remaining %d bytes", ErrBadMeta, field, n, len(rest))
		}
		s := string(rest[:n])
		rest = rest[n:]
		return s, nil
	}
	var err error
	if out.Transport, err = str("transport"); err != nil {
		return Meta{}, 0, err
	}
	if out.Zone, err = str("zone"); err != nil {
		return Meta{}, 0, err
	}
	if len(rest) < 16 {
		return Meta{}, 0, fmt.Errorf("%w: truncated load (%d of 16 bytes)", ErrBadMeta, len(rest))
	}
	out.Load.Ready = countFromWire(rest[0:])
	out.Load.Workers = countFromWire(rest[4:])
	out.Load.Idle = countFromWire(rest[8:])
	out.Load.Rate = rateFromWire(rest[12:])
	var flags byte
	if len(rest) > 16 {
		flags = rest[16]
		rest = rest[17:]
		if len(rest) > 0 {
			if out.Scheduler, err = str("scheduler"); err != nil {
				return Meta{}, 0, err
			}
		}
		if len(rest) > 0 {
			if out.Share, err = str("share"); err != nil {
				return Meta{}, 0, err
			}
			if len(rest) > 0 {
				out.Client = rest[0] == 1
				rest = rest[1:]
			}
		}
	}
	return out, flags, nil
}

// peekVersion returns the protocol version byte of encoded metadata even if
// the rest does not decode (a newer layout), so that a mismatch can be named.
func peekVersion(b []byte) (uint8, bool) {
	if len(b) >= 2 && b[0] == metaMagic {
		return b[1], true
	}
	return 0, false
}

// wireCount encodes a count as an int32, saturating: a count past the
// int32 range is not a real load.
func wireCount(n int) uint32 {
	return uint32(int32(min(max(n, 0), math.MaxInt32)))
}

// countFromWire decodes a count; a negative one (only a foreign or broken
// peer sends it) reads as 0, so no policy is handed a negative load.
func countFromWire(b []byte) int {
	return max(0, int(int32(binary.LittleEndian.Uint32(b))))
}

// rateFromWire decodes a rate; NaN, infinite and negative rates read as 0.
func rateFromWire(b []byte) float64 {
	r := float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 {
		return 0
	}
	return r
}
