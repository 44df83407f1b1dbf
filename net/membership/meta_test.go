package membership

import (
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
		{Transport: strings.Repeat("t", 300), Zone: strings.Repeat("z", 150), Version: 255, Load: Load{Ready: -1, Workers: math.MaxInt32, Idle: math.MinInt32, Rate: float32(math.Inf(1))}},
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
		// Every strict prefix fails cleanly.
		for i := range b {
			var p Meta
			if err := p.UnmarshalBinary(b[:i]); !errors.Is(err, ErrBadMeta) {
				t.Fatalf("prefix %d of %d: err %v", i, len(b), err)
			}
		}
		// Trailing bytes are room for future fields.
		if err := got.UnmarshalBinary(append(b, 1, 2, 3)); err != nil || got != m {
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
