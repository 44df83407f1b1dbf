package membership

import (
	"encoding/binary"
	"errors"
	"math"
	"net"
	"strings"
	"testing"

	"github.com/hashicorp/memberlist"
)

func fakeNode(name string, meta []byte) *memberlist.Node {
	return &memberlist.Node{Name: name, Addr: net.IPv4(127, 0, 0, 1), Port: 9, Meta: meta, State: memberlist.StateAlive}
}

func TestMetaRoundTrip(t *testing.T) {
	for _, m := range []Meta{
		{},
		{Transport: "10.0.0.1:7000", Zone: "eu-west-1a", Version: ProtocolVersion, Load: Load{Ready: 12, Workers: 8, Idle: 3, Rate: 1234.5}},
		{Transport: "10.0.0.1:7000", Version: ProtocolVersion, Scheduler: "fishing:random"},
		{Transport: strings.Repeat("t", 300), Zone: strings.Repeat("z", 150), Version: 255, Load: Load{Ready: 0, Workers: math.MaxInt32, Idle: 1, Rate: 0.25}},
	} {
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		var got Meta
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		if got != m {
			t.Errorf("round trip %+v -> %+v", m, got)
		}
		if v, ok := peekVersion(b); !ok || v != m.Version {
			t.Errorf("peekVersion = %d %v", v, ok)
		}
		// Every strict prefix fails cleanly, but for those that end where
		// the optional fields begin: the meta of an older node.
		noSched := m
		noSched.Scheduler = ""
		base, _ := noSched.MarshalBinary()
		for i := range b {
			var p Meta
			err := p.UnmarshalBinary(b[:i])
			if (i == len(base) || i == len(base)+1) && m.Scheduler != "" {
				if err != nil || p != noSched {
					t.Fatalf("prefix %d of %d, an older node's meta: %+v, %v", i, len(b), p, err)
				}
				continue
			}
			if !errors.Is(err, ErrBadMeta) {
				t.Fatalf("prefix %d of %d: err %v", i, len(b), err)
			}
		}
		// Bytes after the client flag are room for future fields.
		withSched := m
		withSched.Scheduler, withSched.Share, withSched.Client = "balance", "equi", true
		sb, _ := withSched.MarshalBinary()
		if err := got.UnmarshalBinary(append(sb, 1, 2, 3)); err != nil || got != withSched {
			t.Errorf("trailing bytes: %v %+v", err, got)
		}
	}
	small, _ := Meta{Transport: "127.0.0.1:7000", Zone: "a", Version: 1}.MarshalBinary()
	if len(small) > 40 {
		t.Errorf("typical meta is %d bytes", len(small))
	}
	if _, err := (Meta{Transport: strings.Repeat("x", 500)}).MarshalBinary(); !errors.Is(err, ErrMetaTooLarge) {
		t.Errorf("oversize: %v", err)
	}
}

// TestMetaLoadFromTheWire: a load no real node sends (negative counts, a
// rate that is not a finite positive number) reads as zero, and counts past
// the wire's int32 saturate, so that no policy is handed nonsense.
func TestMetaLoadFromTheWire(t *testing.T) {
	for _, c := range []struct{ sent, want Load }{
		{Load{Ready: -1, Workers: -5, Idle: -1, Rate: -2}, Load{}},
		{Load{Rate: math.Inf(1)}, Load{}},
		{Load{Rate: math.NaN()}, Load{}},
		{Load{Ready: math.MaxInt32 + 10}, Load{Ready: math.MaxInt32}},
	} {
		b, err := Meta{Load: c.sent}.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var got Meta
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if got.Load != c.want {
			t.Errorf("sent %+v, read %+v, want %+v", c.sent, got.Load, c.want)
		}
	}
	// A negative count put on the wire by hand.
	b, _ := Meta{Load: Load{Ready: 1}}.MarshalBinary()
	binary.LittleEndian.PutUint32(b[4:], uint32(0xffffffff))
	var got Meta
	if err := got.UnmarshalBinary(b); err != nil || got.Load.Ready != 0 {
		t.Errorf("a Ready of -1 on the wire read as %d (%v)", got.Load.Ready, err)
	}
}

func FuzzMetaDecode(f *testing.F) {
	good, _ := Meta{Transport: "h:1", Zone: "z", Version: 1, Load: Load{Ready: 3}}.MarshalBinary()
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte{'T'})
	f.Add([]byte{'T', 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{'T', 1, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Meta
		if err := m.UnmarshalBinary(b); err != nil {
			return
		}
		again, err := m.MarshalBinary()
		if err != nil {
			return // decoded from >512 input bytes
		}
		var m2 Meta
		if err := m2.UnmarshalBinary(again); err != nil || m2.Version != m.Version || m2.Transport != m.Transport || m2.Zone != m.Zone {
			t.Fatalf("re-decode: %v %+v %+v", err, m, m2)
		}
	})
}
