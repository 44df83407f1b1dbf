package cluster

import (
	"net"
	"testing"

	"github.com/tsys-go/tsys/internal/net/membership"
)

// TestPeerBookMember: a connection goes ahead as a member's only for a
// member gossip brought, from the host of its gossiped task address; not
// for an address only a message brought, a member that left, a host name
// (never resolved), or this node's own name.
func TestPeerBookMember(t *testing.T) {
	b := newPeerBook("self")
	b.joined("a", membership.Meta{Transport: "127.0.0.1:7000"}, false)
	b.joined("named", membership.Meta{Transport: "localhost:7000"}, false)
	b.joined("gone", membership.Meta{Transport: "127.0.0.3:7000"}, false)
	b.left("gone")
	b.learn("told", "127.0.0.4:7000")
	b.joined("self", membership.Meta{Transport: "127.0.0.1:7001"}, false)
	lo := net.IPv4(127, 0, 0, 1)
	for _, tc := range []struct {
		name string
		ip   net.IP
		want bool
	}{
		{"a", lo, true},
		{"a", net.IPv4(127, 0, 0, 2), false},
		{"named", lo, false},
		{"gone", net.IPv4(127, 0, 0, 3), false},
		{"told", net.IPv4(127, 0, 0, 4), false},
		{"self", lo, false},
		{"nobody", lo, false},
	} {
		if got := b.Member(tc.name, tc.ip); got != tc.want {
			t.Errorf("Member(%q, %v) = %v, want %v", tc.name, tc.ip, got, tc.want)
		}
	}
}
