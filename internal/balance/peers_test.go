package balance

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// TestPeerSetIsAMap: the peer table finds what a Go map would after any
// sequence of adds and removes, through its growth and its deletions'
// moves, knows each peer's place in the order of names, and visits the
// peers in that order.
func TestPeerSetIsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := newPeerSet[int]()
	want := map[clusterpolicy.NodeID]int{}
	for step := range 20000 {
		id := clusterpolicy.NodeID(fmt.Sprintf("n%d", rng.IntN(300)))
		if rng.IntN(3) == 0 {
			s.remove(id)
			delete(want, id)
		} else {
			s.add(id, step)
			if _, ok := want[id]; !ok {
				want[id] = step
			}
		}
		probe := clusterpolicy.NodeID(fmt.Sprintf("n%d", rng.IntN(320)))
		got := s.get(probe)
		if p, i := s.place(probe); p != got || got != nil && s.order[i] != probe {
			t.Fatalf("step %d: place(%s) = %v, %d; get %v", step, probe, p, i, got)
		}
		if w, ok := want[probe]; got == nil && ok || got != nil && (!ok || *got != w) {
			t.Fatalf("step %d: get(%s) = %v, want %v (%v)", step, probe, got, w, ok)
		}
	}
	var ids []clusterpolicy.NodeID
	s.each(func(id clusterpolicy.NodeID, p *int) {
		if *p != want[id] {
			t.Errorf("each: %s holds %v, want %v", id, *p, want[id])
		}
		ids = append(ids, id)
	})
	if len(ids) != len(want) || s.len() != len(want) || !slices.IsSorted(ids) {
		t.Errorf("each visited %d peers (len %d), want %d in order: %v", len(ids), s.len(), len(want), ids)
	}
	for id, p := range want {
		if got := s.get(id); got == nil || *got != p {
			t.Errorf("get(%s) = %v, want %v", id, got, p)
		}
	}
}
