package cluster

import (
	"testing"
	"time"
)

// TestDismiss: a node dismissed by a peer hears it, with the status and
// the reason; one not dismissed has none.
func TestDismiss(t *testing.T) {
	root := testNode(t, Config{Name: "r0"})
	a := testNode(t, Config{Name: "r1", Join: []string{root.GossipAddr()}})
	b := testNode(t, Config{Name: "r2", Join: []string{root.GossipAddr()}})
	waitUntil(t, "both ranks reachable from rank 0", func() bool { return root.Reachable() == 2 })
	if _, _, ok := a.Dismissed(); ok {
		t.Fatal("dismissed before anyone dismissed it")
	}
	if err := root.Dismiss(1, "uts: wrong answer"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*Node{a, b} {
		select {
		case <-n.ShutdownRequested():
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not hear the dismissal", n.Name())
		}
		if status, reason, ok := n.Dismissed(); !ok || status != 1 || reason != "uts: wrong answer" {
			t.Errorf("%s: dismissed %v with status %d: %q", n.Name(), ok, status, reason)
		}
	}
	if _, _, ok := root.Dismissed(); ok {
		t.Error("the node that dismissed the others says it was dismissed")
	}
}
