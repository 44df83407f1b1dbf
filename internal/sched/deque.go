package sched

import "sync/atomic"

// Deque is a split work-stealing deque of task frames: a Chase-Lev deque
// whose newest elements the owner may keep private.
//
// One goroutine, the owner, pushes and pops at the bottom (newest first, so a
// worker runs its own work depth-first); any number of thieves take the
// oldest element from the top. The elements are positions [top, bottom),
// split in two at split:
//
//   - [top, split) is public: a Chase-Lev deque ("Dynamic circular
//     work-stealing deque", Chase and Lev, SPAA 2005) whose bottom is
//     split, in a ring of atomic slots. Thieves steal its oldest element.
//   - [split, bottom) is private: the owner's alone, in a ring of plain
//     slots. Push and Pop work here with plain loads and stores, where
//     Chase-Lev's own push and pop pay sequentially consistent stores (the
//     only kind Go's sync/atomic has: an XCHG each on amd64) for the slot,
//     for bottom, and for the store-load fence of the pop. That is the
//     split deque of Dinan et al. ("Scalable work stealing", SC'09), without
//     its lock.
//
// Release moves the oldest private elements to the public part. The hazard
// of the split is that thieves cannot see private elements: a worker that
// keeps tasks private while another worker looks for work leaves that
// worker idle. So:
//   - Push keeps a floor of public elements (SetFloor) before it keeps any
//     private: the oldest tasks, the largest in a divide-and-conquer
//     program, and all the tasks load-based inlining keeps, stay public;
//   - at most maxPrivate elements are private (Push releases the older
//     half past that);
//   - the executor releases them all as soon as any worker or node wants
//     work (Executor.offerWork), and before its worker waits or goes to
//     another executor (Executor.publishWork).
//
// Private elements are only the newest ones above the floor, and only
// while everybody is busy. What is left is that a thief who has taken the
// public ones can wait for the owner's next push or pop to see those
// (bench/README.md "The split deque" measures it on coarse leaves).
//
// Invariants:
//   - top only grows, and only by a successful CompareAndSwap: whoever moves
//     top from t to t+1 owns element t, so an element is taken at most once.
//   - split and bottom are written only by the owner; split <= bottom, and
//     the owner keeps its own copy of split (pub) to read without an atomic.
//   - the public ring holds at least split-top slots; a grown ring is never
//     written through the old one, so a thief reading a stale ring still
//     reads the right element, and its CAS on top decides whether it may
//     keep it. A public slot is written (atomically) before the split that
//     publishes it.
//   - when one public element is left and nothing is private, the owner's
//     Pop and a thief race for it with the same CAS on top.
type Deque struct {
	top atomic.Int64
	// Keep the owner's hot fields off the thieves' cache line.
	_     [56]byte
	split atomic.Int64
	ring  atomic.Pointer[ring]

	// The owner's fields: bottom, its copy of split, the private ring,
	// whose length is a power of two (or zero before the first push), and
	// the public floor (SetFloor).
	bottom int64
	pub    int64
	own    []*Header
	floor  int64
}

type ring struct {
	mask  int64
	slots []atomic.Pointer[Header]
}

const initialDequeSize = 64

// maxPrivate is how many elements Push keeps private before it releases
// the older half of them. Small, so that the oldest tasks, the largest in
// a divide-and-conquer program, stay stealable while the owner runs a
// long leaf; large enough that a fine-grained program's bottom moves up
// and down within it (BenchmarkForkJoin, bench/README.md "The split
// deque").
const maxPrivate = 8

func newRing(size int64) *ring {
	return &ring{mask: size - 1, slots: make([]atomic.Pointer[Header], size)}
}

func (r *ring) at(i int64) *atomic.Pointer[Header] { return &r.slots[i&r.mask] }

// Len reports how many public elements the deque holds: those a thief may
// take. Any goroutine; a snapshot that may already be stale.
func (d *Deque) Len() int {
	n := d.split.Load() - d.top.Load()
	if n < 0 {
		return 0
	}
	return int(n)
}

// OwnerLen reports how many elements the deque holds, private ones too.
// Owner only; exact but for concurrent steals.
func (d *Deque) OwnerLen() int {
	n := d.bottom - d.top.Load()
	if n < 0 {
		return 0
	}
	return int(n)
}

// Private reports how many elements the owner keeps private. Owner only.
func (d *Deque) Private() int { return int(d.bottom - d.pub) }

// Push adds x at the bottom, privately, and returns its slot, which stays
// valid for Holds until the element is taken, and the length of the deque
// it saw (exact but for concurrent steals). Owner only.
//
// A slot is the low 32 bits of the element's position: a deque holds far
// fewer than 2^31 elements, so Holds recovers the position from the
// bottom, and a Header keeps 4 bytes rather than 8 (frames a size smaller
// spawn faster, BenchmarkSpawnGet).
func (d *Deque) Push(x *Header) (slot uint32, length int64) {
	if slot, length, ok := d.PushOwn(x); ok {
		return slot, length
	}
	return d.PushPublishing(x)
}

// PushPublishing is Push when PushOwn declined: the element, or older
// ones, must be made public. Owner only.
func (d *Deque) PushPublishing(x *Header) (slot uint32, length int64) {
	b := d.bottom
	if b-d.pub >= int64(len(d.own)) {
		d.growOwn()
	}
	d.own[b&int64(len(d.own)-1)] = x
	d.bottom = b + 1
	t := d.top.Load()
	switch {
	case d.pub-t < d.floor:
		d.release(b + 1 - d.pub)
	case b+1-d.pub > maxPrivate:
		d.release(maxPrivate / 2)
	}
	return uint32(b), b + 1 - t
}

// SetFloor sets how many public elements Push keeps before it keeps any
// private: a push that finds fewer public elements makes them all public.
// The executor sets it to the ready tasks the inlining policy keeps for
// thieves, which are the deque's reason to exist under load-based
// inlining: a worker that inlines while its deque holds them may not
// touch its deque for long, so they must be where thieves see them.
// Owner only.
func (d *Deque) SetFloor(n int) { d.floor = int64(n) }

// PushOwn is Push's private path alone: it pushes x privately and
// reports true, or reports false, having done nothing, when Push must
// publish (below the floor, past maxPrivate, or before the first private
// ring). Small enough to be inlined where the executor pushes. Owner only.
func (d *Deque) PushOwn(x *Header) (slot uint32, length int64, ok bool) {
	b, t := d.bottom, d.top.Load()
	if d.pub-t < d.floor || b-d.pub >= maxPrivate || len(d.own) == 0 {
		return 0, 0, false
	}
	d.own[b&int64(len(d.own)-1)] = x
	d.bottom = b + 1
	return uint32(b), b + 1 - t, true
}

// growOwn doubles the private ring (or makes the first one).
func (d *Deque) growOwn() {
	n := max(2*len(d.own), 2*maxPrivate)
	own := make([]*Header, n)
	for i := d.pub; i < d.bottom; i++ {
		own[i&int64(n-1)] = d.own[i&int64(len(d.own)-1)]
	}
	d.own = own
}

// Release makes every private element public, and reports how many it
// made so. Owner only.
func (d *Deque) Release() int {
	n := d.bottom - d.pub
	if n > 0 {
		d.release(n)
	}
	return int(n)
}

// release makes the n oldest private elements public: it stores them in
// the public ring, then publishes them by moving split past them.
func (d *Deque) release(n int64) {
	s := d.pub
	r := d.ring.Load()
	if r == nil || s+n-d.top.Load() > r.mask+1 {
		r = d.grow(r, s, s+n)
	}
	mask := int64(len(d.own) - 1)
	for i := s; i < s+n; i++ {
		r.at(i).Store(d.own[i&mask])
		d.own[i&mask] = nil
	}
	d.pub = s + n
	d.split.Store(s + n)
}

// grow makes a public ring for at least [top, end), copying the public
// elements [top, s) of the old one.
func (d *Deque) grow(old *ring, s, end int64) *ring {
	t := d.top.Load()
	size := int64(initialDequeSize)
	for size < end-t {
		size *= 2
	}
	if old != nil {
		size = max(size, 2*(old.mask+1))
	}
	r := newRing(size)
	if old != nil {
		for i := t; i < s; i++ {
			r.at(i).Store(old.at(i).Load())
		}
	}
	d.ring.Store(r)
	return r
}

// Pop removes and returns the newest element, or nil if there is none.
// Owner only.
func (d *Deque) Pop() *Header {
	if b := d.bottom - 1; b >= d.pub {
		return d.popOwn(b)
	}
	return d.popPublic(nil)
}

// popOwn takes the private element at position b, the newest.
func (d *Deque) popOwn(b int64) *Header {
	i := b & int64(len(d.own)-1)
	x := d.own[i]
	d.own[i] = nil
	d.bottom = b
	return x
}

// popPublic is Chase-Lev's pop on the public part, with nothing private:
// it takes the newest public element if it is want (any element when want
// is nil), and returns it, or nil.
func (d *Deque) popPublic(want *Header) *Header {
	s := d.pub - 1
	if s < d.top.Load() {
		// Empty, and stays so: only the owner adds elements.
		return nil
	}
	x := d.ring.Load().at(s).Load()
	if want != nil && x != want {
		return nil
	}
	// Publishing the smaller split before reading top is the store-load
	// fence of the algorithm: a thief that read the old split will see our
	// claim when it CASes top.
	d.split.Store(s)
	t := d.top.Load()
	switch {
	case t < s:
		d.pub, d.bottom = s, s
		return x
	case t == s && d.top.CompareAndSwap(t, t+1):
		// One element left, and we won it from the thieves.
	default:
		x = nil
	}
	d.split.Store(s + 1)
	d.pub, d.bottom = s+1, s+1
	return x
}

// PopOwnIf is PopIf's private path alone: it pops x if x is the newest
// element and private. Small enough to be inlined where the executor
// joins. Owner only.
func (d *Deque) PopOwnIf(x *Header) bool {
	b := d.bottom - 1
	if b < d.pub {
		return false
	}
	i := b & int64(len(d.own)-1)
	if d.own[i] != x {
		return false
	}
	d.own[i] = nil
	d.bottom = b
	return true
}

// PopIf pops the newest element if it is x, and reports whether it did.
// It fails when x is not the newest element, or when x was the last one
// and a thief took it first. Owner only.
func (d *Deque) PopIf(x *Header) bool {
	return d.PopOwnIf(x) || d.PopPublicIf(x)
}

// PopPublicIf is PopIf when PopOwnIf declined: it pops x if x is the
// newest element and public. Owner only.
func (d *Deque) PopPublicIf(x *Header) bool {
	if d.bottom > d.pub {
		return false // a private element is newer than x
	}
	return d.popPublic(x) != nil
}

// Steal removes and returns the oldest public element. It returns nil when
// there is none or when another thief or the owner won the race for the
// element; lost reports the latter, so a caller may retry at once.
func (d *Deque) Steal() (x *Header, lost bool) {
	t := d.top.Load()
	s := d.split.Load()
	if t >= s {
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
	b := d.bottom
	// The position whose low 32 bits are slot, at most 2^32 below the
	// bottom; an element taken long ago may map anywhere, and the range
	// and the pointer compare then say no.
	i := b - int64(uint32(b)-slot)
	switch {
	case i >= b:
		return false
	case i >= d.pub:
		return d.own[i&int64(len(d.own)-1)] == x
	case i < d.top.Load():
		return false
	}
	return d.ring.Load().at(i).Load() == x
}

// Clear drops every element, between runs: no owner may use the deque,
// but a thief may (the cluster lends from goroutines of its own, and one
// may still be inside Steal). So it takes the public elements as a thief
// would, which leaves a stale thief's CAS on top nothing to win, and keeps
// the positions: resetting top could let such a CAS move it past split.
func (d *Deque) Clear() {
	for {
		if x, lost := d.Steal(); x == nil && !lost {
			break
		}
	}
	s := d.split.Load()
	d.bottom, d.pub = s, s
	clear(d.own)
	if r := d.ring.Load(); r != nil {
		for i := range r.slots {
			r.slots[i].Store(nil)
		}
	}
}
