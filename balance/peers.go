package balance

import (
	"slices"

	"github.com/tsys-go/tsys/clusterpolicy"
)

// peerSet is what a policy knows of its peers, visited in the order of
// their names: a policy must give the same actions for the same events
// (clusterpolicy.Policy), and a Go map's order changes from run to run.
type peerSet[P any] struct {
	byID  map[clusterpolicy.NodeID]*P
	order []clusterpolicy.NodeID // sorted
}

func newPeerSet[P any]() peerSet[P] { return peerSet[P]{byID: map[clusterpolicy.NodeID]*P{}} }

// get returns the peer named id, or nil.
func (s *peerSet[P]) get(id clusterpolicy.NodeID) *P { return s.byID[id] }

// add makes p the peer named id, unless there is one.
func (s *peerSet[P]) add(id clusterpolicy.NodeID, p *P) {
	if _, ok := s.byID[id]; ok {
		return
	}
	s.byID[id] = p
	i, _ := slices.BinarySearch(s.order, id)
	s.order = slices.Insert(s.order, i, id)
}

// remove forgets the peer named id.
func (s *peerSet[P]) remove(id clusterpolicy.NodeID) {
	if _, ok := s.byID[id]; !ok {
		return
	}
	delete(s.byID, id)
	i, _ := slices.BinarySearch(s.order, id)
	s.order = slices.Delete(s.order, i, i+1)
}

func (s *peerSet[P]) len() int { return len(s.order) }

// each visits the peers in the order of their names.
func (s *peerSet[P]) each(f func(id clusterpolicy.NodeID, p *P)) {
	for _, id := range s.order {
		f(id, s.byID[id])
	}
}
