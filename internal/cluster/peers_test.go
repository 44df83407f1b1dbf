package cluster

import (
	"testing"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/membership"
)

// TestPeerBookLeaving: a member gossip says is leaving is no peer (no
// list, no count, no member for a job's policy or sharing, no newcomer
// to invite), however late an older word without the mark comes, but
// keeps its address for what it still sends, until it is gone; gone, it
// may come back as a newcomer.
func TestPeerBookLeaving(t *testing.T) {
	b := newPeerBook("self")
	stay := membership.Meta{Transport: "127.0.0.1:7000"}
	out := membership.Meta{Transport: "127.0.0.1:7001", Client: true}
	if !b.joined("stay", stay, false) || !b.joined("out", out, false) {
		t.Fatal("members gossip brought first are not newcomers")
	}
	if b.joined("out", out, true) {
		t.Error("a member that starts to leave is a newcomer")
	}
	if b.joined("late", out, true) {
		t.Error("a member first heard of as leaving is a newcomer")
	}
	b.joined("out", out, false) // an older word, without the mark
	check := func(when string) {
		t.Helper()
		if l := b.list(); len(l) != 1 || l["stay"] == "" {
			t.Errorf("%s: list %v, want only stay", when, l)
		}
		if n := b.reachable(); n != 1 {
			t.Errorf("%s: %d reachable, want 1", when, n)
		}
		if m := b.members(); len(m) != 1 {
			t.Errorf("%s: members %v, want only stay", when, m)
		}
	}
	check("leaving")
	for _, id := range []string{"out", "late"} {
		if a, ok := b.addr(clusterpolicy.NodeID(id)); !ok || a != out.Transport {
			t.Errorf("a leaving member's address: %q %v", a, ok)
		}
		if !b.away(clusterpolicy.NodeID(id)) {
			t.Errorf("%s leaving is not away", id)
		}
	}
	b.left("out")
	check("gone")
	if !b.away("out") || b.away("stay") {
		t.Errorf("away: out %v, stay %v", b.away("out"), b.away("stay"))
	}
	if !b.joined("out", out, false) || b.away("out") || len(b.list()) != 2 {
		t.Errorf("a member back after it left: away %v, list %v", b.away("out"), b.list())
	}
}

// TestPeerBookListFor: a job's word goes to the members its policy hears
// of: not to another job's client, but to its own root, and to an address
// only a message brought (no metadata says it is a client).
func TestPeerBookListFor(t *testing.T) {
	b := newPeerBook("self")
	b.joined("node", membership.Meta{Transport: "127.0.0.1:7000"}, false)
	b.joined("root", membership.Meta{Transport: "127.0.0.1:7001", Client: true}, false)
	b.joined("other", membership.Meta{Transport: "127.0.0.1:7002", Client: true}, false)
	b.learn("told", "127.0.0.1:7003")
	e := &engine{}
	e.info.Root = "root"
	got := b.listFor(e.hears)
	if len(got) != 3 || got["node"] == "" || got["root"] == "" || got["told"] == "" {
		t.Errorf("a job's audience: %v, want node, root and told", got)
	}
}
