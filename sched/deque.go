package sched

import "sync/atomic"

// Deque is a Chase-Lev work-stealing deque of task frames.
//
// One goroutine, the owner, pushes and pops at the bottom (newest first, so a
// worker runs its own work depth-first); any number of thieves take the
// oldest element from the top. The algorithm is Chase and Lev's dynamic
// circular deque ("Dynamic circular work-stealing deque", SPAA 2005) with the
// orderings of Lê et al. (PPoPP 2013); Go's atomics are sequentially
// consistent, which is stronger than both need.
//
// Invariants:
//   - top only grows, and only by a successful CompareAndSwap: whoever moves
//     top from t to t+1 owns element t, so an element is taken at most once.
//   - bottom is written only by the owner.
//   - elements [top, bottom) are present; the ring holds at least
//     bottom-top slots; a grown ring is never written through the old one,
//     so a thief reading a stale ring still reads the right element, and its
//     CAS on top decides whether it may keep it.
//   - when one element is left, the owner's Pop and a thief race for it with
//     the same CAS on top.
type Deque struct {
	top atomic.Int64
	// Keep the owner's hot field off the thieves' cache line.
	_      [56]byte
	bottom atomic.Int64
	ring   atomic.Pointer[ring]
}

type ring struct {
	mask  int64
	slots []atomic.Pointer[Header]
}

const initialDequeSize = 64

func newRing(size int64) *ring {
	return &ring{mask: size - 1, slots: make([]atomic.Pointer[Header], size)}
}

func (r *ring) at(i int64) *atomic.Pointer[Header] { return &r.slots[i&r.mask] }

// Len reports how many elements the deque holds. Exact for the owner when no
// thief is active; otherwise a snapshot that may already be stale.
func (d *Deque) Len() int {
	n := d.bottom.Load() - d.top.Load()
	if n < 0 {
		return 0
	}
	return int(n)
}

// Push adds x at the bottom and returns its slot, which stays valid for
// Holds until the element is taken, and the length of the deque it saw
// (exact but for concurrent steals). Owner only.
//
// A slot is the low 32 bits of the element's position: a deque holds far
// fewer than 2^31 elements, so Holds recovers the position from the
// bottom, and a Header keeps 4 bytes rather than 8 (frames a size smaller
// spawn faster, BenchmarkSpawnGet).
func (d *Deque) Push(x *Header) (slot uint32, length int64) {
	b := d.bottom.Load()
	r := d.ring.Load()
	n := b - d.top.Load()
	if r == nil || n > r.mask {
		r = d.grow(r, b)
	}
	r.at(b).Store(x)
	d.bottom.Store(b + 1)
	return uint32(b), n + 1
}

// grow doubles the ring (or makes the first one), copying the live elements.
func (d *Deque) grow(old *ring, b int64) *ring {
	if old == nil {
		r := newRing(initialDequeSize)
		d.ring.Store(r)
		return r
	}
	r := newRing(2 * (old.mask + 1))
	for i := d.top.Load(); i < b; i++ {
		r.at(i).Store(old.at(i).Load())
	}
	d.ring.Store(r)
	return r
}

// Pop removes and returns the newest element, or nil if there is none.
// Owner only.
func (d *Deque) Pop() *Header {
	b := d.bottom.Load() - 1
	r := d.ring.Load()
	// Publishing the smaller bottom before reading top is the store-load
	// fence of the algorithm: a thief that read the old bottom will see our
	// claim when it CASes top.
	d.bottom.Store(b)
	t := d.top.Load()
	if t > b {
		d.bottom.Store(b + 1)
		return nil
	}
	x := r.at(b).Load()
	if t < b {
		return x
	}
	// One element left: race the thieves for it.
	if !d.top.CompareAndSwap(t, t+1) {
		x = nil
	}
	d.bottom.Store(b + 1)
	return x
}

// PopIf pops the newest element if it is x, and reports whether it did.
// It fails when x is not the newest element, or when x was the last one
// and a thief took it first. Owner only. It is Pop with the check first:
// only the owner writes slots, so reading slot b before claiming it is
// safe, and whether the element is still there is decided as in Pop.
func (d *Deque) PopIf(x *Header) bool {
	b := d.bottom.Load() - 1
	r := d.ring.Load()
	if r == nil || r.at(b).Load() != x {
		return false
	}
	d.bottom.Store(b)
	t := d.top.Load()
	if t < b {
		return true
	}
	won := t == b && d.top.CompareAndSwap(t, t+1)
	d.bottom.Store(b + 1)
	return won
}

// Steal removes and returns the oldest element. It returns nil when the deque
// is empty or when another thief or the owner won the race for the element;
// lost reports the latter, so a caller may retry at once.
func (d *Deque) Steal() (x *Header, lost bool) {
	t := d.top.Load()
	b := d.bottom.Load()
	if t >= b {
		return nil, false
	}
	r := d.ring.Load()
	x = r.at(t).Load()
	if !d.top.CompareAndSwap(t, t+1) {
		return nil, true
	}
	return x, false
}

// Holds reports whether the element Push gave slot is still in the deque,
// and so will be returned by Pop once everything pushed after it has been
// popped. Owner only.
func (d *Deque) Holds(slot uint32, x *Header) bool {
	b := d.bottom.Load()
	// The position whose low 32 bits are slot, at most 2^32 below the
	// bottom; an element taken long ago may map anywhere, and the range
	// and the pointer compare then say no.
	i := b - int64(uint32(b)-slot)
	if i < d.top.Load() || i >= b {
		return false
	}
	return d.ring.Load().at(i).Load() == x
}

// Clear drops every element. Only when neither the owner nor any thief is
// using the deque.
func (d *Deque) Clear() {
	d.top.Store(0)
	d.bottom.Store(0)
	if r := d.ring.Load(); r != nil {
		for i := range r.slots {
			r.slots[i].Store(nil)
		}
	}
}
