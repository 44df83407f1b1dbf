package balance

import (
	"hash/maphash"
	"slices"
	"strings"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// peerSet is what a policy knows of its peers, visited in the order of
// their names: a policy must give the same actions for the same events
// (clusterpolicy.Policy), and a Go map's order changes from run to run.
//
// A policy looks a peer up on every load report it hears, N-1 reports a
// period each among N nodes, and among many nodes what it knows of them
// is too much for the caches: each lookup waits for memory. So the peers
// live in an open-addressed table of their own, one probe into one slice
// reaching the peer itself, where a Go map of pointers to them goes
// through its header, directory, table and group, and then the pointer.
type peerSet[P any] struct {
	slots []peerSlot[P] // a power of two long, at most half full
	order []clusterpolicy.NodeID
	// gen counts the adds and removes, which move peers in order; the
	// slots' places are those of gen indexed.
	gen, indexed uint64
}

type peerSlot[P any] struct {
	id    clusterpolicy.NodeID
	hash  uint64
	full  bool
	place int32 // the peer's place in order
	p     P
}

// peerSeed seeds the table's hash: where a peer sits in the table
// decides nothing, so it may differ from run to run.
var peerSeed = maphash.MakeSeed()

func newPeerSet[P any]() peerSet[P] { return peerSet[P]{} }

// slot is the index of id's slot in the table, or of the empty slot where
// it would go.
func (s *peerSet[P]) slot(id clusterpolicy.NodeID, h uint64) uint64 {
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if sl := &s.slots[i]; !sl.full || sl.hash == h && sl.id == id {
			return i
		}
	}
}

// get returns the peer named id, or nil. The pointer is good until the
// next add or remove.
func (s *peerSet[P]) get(id clusterpolicy.NodeID) *P {
	if len(s.slots) == 0 {
		return nil
	}
	sl := &s.slots[s.slot(id, maphash.String(peerSeed, string(id)))]
	if !sl.full {
		return nil
	}
	return &sl.p
}

// place returns the peer named id and its place in the order of names,
// or nil.
func (s *peerSet[P]) place(id clusterpolicy.NodeID) (*P, int) {
	if len(s.slots) == 0 {
		return nil, -1
	}
	if s.indexed != s.gen {
		for i, id := range s.order {
			s.slots[s.slot(id, maphash.String(peerSeed, string(id)))].place = int32(i)
		}
		s.indexed = s.gen
	}
	sl := &s.slots[s.slot(id, maphash.String(peerSeed, string(id)))]
	if !sl.full {
		return nil, -1
	}
	return &sl.p, int(sl.place)
}

// add makes p the peer named id, unless there is one.
func (s *peerSet[P]) add(id clusterpolicy.NodeID, p P) {
	if s.get(id) != nil {
		return
	}
	if 2*(len(s.order)+1) > len(s.slots) {
		old := s.slots
		s.slots = make([]peerSlot[P], max(8, 2*len(old)))
		for _, sl := range old {
			if sl.full {
				s.slots[s.slot(sl.id, sl.hash)] = sl
			}
		}
	}
	h := maphash.String(peerSeed, string(id))
	s.slots[s.slot(id, h)] = peerSlot[P]{id: id, hash: h, full: true, p: p}
	i, _ := slices.BinarySearchFunc(s.order, id, compareIDs)
	s.order = slices.Insert(s.order, i, id)
	s.gen++
}

// remove forgets the peer named id.
func (s *peerSet[P]) remove(id clusterpolicy.NodeID) {
	if s.get(id) == nil {
		return
	}
	// Linear probing's deletion: a later entry of the run that would be
	// found through the hole moves back into it.
	mask := uint64(len(s.slots) - 1)
	hole := s.slot(id, maphash.String(peerSeed, string(id)))
	for j := (hole + 1) & mask; s.slots[j].full; j = (j + 1) & mask {
		// It may, unless its home lies cyclically in (hole, j].
		if home := s.slots[j].hash & mask; (j-home)&mask >= (j-hole)&mask {
			s.slots[hole] = s.slots[j]
			hole = j
		}
	}
	s.slots[hole] = peerSlot[P]{}
	i, _ := slices.BinarySearchFunc(s.order, id, compareIDs)
	s.order = slices.Delete(s.order, i, i+1)
	s.gen++
}

func compareIDs(a, b clusterpolicy.NodeID) int { return strings.Compare(string(a), string(b)) }

func (s *peerSet[P]) len() int { return len(s.order) }

// each visits the peers in the order of their names.
func (s *peerSet[P]) each(f func(id clusterpolicy.NodeID, p *P)) {
	for _, id := range s.order {
		f(id, s.get(id))
	}
}
