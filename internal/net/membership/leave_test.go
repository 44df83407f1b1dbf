package membership

import (
	"fmt"
	"testing"
	"time"
)

// TestLeaveReachesEveryMember: each member hears a node that leaves as
// leaving, and then as gone gracefully (Failed=false), however many
// members gossip's retransmissions reach. Nodes leave one by one from a
// cluster of five, as the clients of back-to-back jobs do: with the fast
// timing an update is gossiped to two members, so without a word to each
// member some would hear of the leave before the mark and hold the node
// dead (and ask it to join again for minutes).
func TestLeaveReachesEveryMember(t *testing.T) {
	nodes := cluster(t, 5, nil)
	for i := len(nodes) - 1; i >= 2; i-- {
		gone := nodes[i]
		if err := gone.Leave(time.Second); err != nil {
			t.Fatal(err)
		}
		if err := gone.Shutdown(); err != nil {
			t.Fatal(err)
		}
		for _, nd := range nodes[:i] {
			eventually(t, 3*time.Second, fmt.Sprintf("%s to report %s left", nd.Name(), gone.Name()), func() bool {
				_, ok := nd.rec.find(Left, gone.Name())
				return ok
			})
			if e, _ := nd.rec.find(Left, gone.Name()); e.Failed || !e.Member.Leaving {
				t.Errorf("%s heard %s leave as failed=%v leaving=%v, want a graceful leave", nd.Name(), gone.Name(), e.Failed, e.Member.Leaving)
			}
			if nd.lost.any() {
				t.Errorf("%s asks %s to join again: it holds it dead", nd.Name(), gone.Name())
			}
		}
	}
}

// TestLeavingMarkStands: a member's word that it leaves is reported once,
// stands against later gossip without the mark, and makes its departure
// graceful; a word about a node that is not a member, about a member at
// another gossip address than its own, or a message that is no leave
// notice, changes nothing.
func TestLeavingMarkStands(t *testing.T) {
	nodes := cluster(t, 2, nil)
	a, b := nodes[0], nodes[1]
	d := &delegate{m: a.Membership}
	d.NotifyMsg(leaveNotice("stranger", "127.0.0.1:1"))
	d.NotifyMsg([]byte("n1"))
	d.NotifyMsg(leaveNotice(a.Name(), a.Addr()))
	d.NotifyMsg(leaveNotice("n1", "127.0.0.1:1"))
	if ms := a.Members(); ms[0].Leaving || ms[1].Leaving {
		t.Fatalf("members after notices that do not apply: %+v", ms)
	}
	d.NotifyMsg(leaveNotice("n1", b.Addr()))
	d.NotifyMsg(leaveNotice("n1", b.Addr()))
	updates := func() (leaving, staying int) {
		a.rec.mu.Lock()
		defer a.rec.mu.Unlock()
		for _, e := range a.rec.evs {
			if e.Kind != Updated || e.Member.Name != "n1" {
				continue
			}
			if e.Member.Leaving {
				leaving++
			} else if leaving > 0 {
				staying++
			}
		}
		return leaving, staying
	}
	eventually(t, time.Second, "n0 to report n1 leaving", func() bool {
		l, _ := updates()
		return l > 0
	})
	if l, _ := updates(); l != 1 {
		t.Errorf("two notices made %d updates, want 1", l)
	}
	if err := b.SetZone("elsewhere"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 3*time.Second, "n0 to hear n1's new zone", func() bool { return a.Members()[1].Meta.Zone == "elsewhere" })
	if _, staying := updates(); staying > 0 || !a.Members()[1].Leaving {
		t.Errorf("gossip without the mark made n1 stay: %d updates say so; %+v", staying, a.Members()[1])
	}
	if err := b.Shutdown(); err != nil { // no Leave: gossip declares it dead
		t.Fatal(err)
	}
	eventually(t, 3*time.Second, "n0 to report n1 gone", func() bool {
		_, ok := a.rec.find(Left, "n1")
		return ok
	})
	if e, _ := a.rec.find(Left, "n1"); e.Failed {
		t.Errorf("n1 said it leaves, and is reported failed")
	}
}

// TestLeaveHeardBeforeTheNode: a member that hears a node leave before
// gossip has brought the node (a short job's client) reports it leaving
// when gossip brings it from the address the notice named, and not a
// node of that name at another address.
func TestLeaveHeardBeforeTheNode(t *testing.T) {
	a := start(t, Config{Name: "n0"})
	b := start(t, Config{Name: "n1"})
	c := start(t, Config{Name: "n2"})
	d := &delegate{m: a.Membership}
	d.NotifyMsg(leaveNotice("n1", b.Addr()))
	d.NotifyMsg(leaveNotice("n2", "127.0.0.1:1"))
	for _, nd := range []*node{b, c} {
		if _, err := nd.ml.Join([]string{a.Addr()}); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]bool{"n1": true, "n2": false} {
		eventually(t, time.Second, "n0 to hear of "+name, func() bool {
			_, ok := a.rec.find(Joined, name)
			return ok
		})
		if e, _ := a.rec.find(Joined, name); e.Member.Leaving != want {
			t.Errorf("%s joined with leaving=%v, want %v", name, e.Member.Leaving, want)
		}
	}
}

func TestEarlyLeaves(t *testing.T) {
	var e earlyLeaves
	now := time.Now()
	e.add("a", "h:1", now)
	e.add("b", "h:2", now)
	if e.take("a", "h:9", now) || e.take("a", "h:1", now) {
		t.Error("a notice taken from another address, or twice")
	}
	if e.take("b", "h:2", now.Add(earlyFor+time.Second)) {
		t.Error("a notice taken after earlyFor")
	}
	e.add("c", "h:3", now)
	e.add("d", "h:4", now.Add(earlyFor+time.Second))
	if _, kept := e["c"]; kept {
		t.Error("an old notice outlived a later add")
	}
	for i := range maxEarly + 10 {
		e.add(fmt.Sprint(i), "h:1", now)
	}
	if len(e) > maxEarly {
		t.Errorf("%d notices kept, want at most %d", len(e), maxEarly)
	}
}

func TestLeaveNoticeEncoding(t *testing.T) {
	b := leaveNotice("n-1", "10.0.0.1:7946")
	if name, gossip, ok := readLeaveNotice(b); !ok || name != "n-1" || gossip != "10.0.0.1:7946" {
		t.Errorf("read back %q %q %v", name, gossip, ok)
	}
	for i := range b {
		if _, _, ok := readLeaveNotice(b[:i]); ok {
			t.Errorf("a notice cut to %d bytes reads", i)
		}
	}
	for _, bad := range [][]byte{nil, {metaMagic}, {'X', noticeLeaving, 1, 'a', 0}, {metaMagic, 9, 1, 'a', 0}, leaveNotice("", "h:1")} {
		if _, _, ok := readLeaveNotice(bad); ok {
			t.Errorf("%q reads as a leave notice", bad)
		}
	}
}
