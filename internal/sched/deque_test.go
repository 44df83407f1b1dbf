package sched

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestDequeSequential checks the deque against a model under a random
// sequence of owner operations and steals from the same goroutine. The
// model is a slice, oldest first, of which the first public elements are
// the ones a thief may take.
func TestDequeSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var d Deque
	var model []*Header
	public, floor := 0, 0
	for step := 0; step < 100000; step++ {
		switch op := rng.IntN(14); {
		case op == 13:
			floor = rng.IntN(4)
			d.SetFloor(floor)
		case op == 12:
			if got, want := d.Release(), len(model)-public; got != want {
				t.Fatalf("step %d: Release = %d, want %d", step, got, want)
			}
			public = len(model)
		case op >= 10:
			// PopIf of the newest element, or of one that is not.
			var want *Header
			x := new(Header)
			if len(model) > 0 && op == 10 {
				want = model[len(model)-1]
				x = want
			} else if len(model) > 1 {
				x = model[0]
			}
			if got := d.PopIf(x); got != (want != nil) {
				t.Fatalf("step %d: PopIf = %v, want %v", step, got, want != nil)
			}
			if want != nil {
				model = model[:len(model)-1]
				public = min(public, len(model))
			}
		case op < 5:
			x := new(Header)
			d.Push(x)
			model = append(model, x)
			switch {
			case public < floor:
				public = len(model)
			case len(model)-public > maxPrivate:
				public += maxPrivate / 2
			}
		case op < 8:
			got := d.Pop()
			var want *Header
			if len(model) > 0 {
				want = model[len(model)-1]
				model = model[:len(model)-1]
				public = min(public, len(model))
			}
			if got != want {
				t.Fatalf("step %d: Pop = %v, want %v", step, got, want)
			}
		default:
			got, lost := d.Steal()
			if lost {
				t.Fatalf("step %d: Steal lost a race with nobody", step)
			}
			var want *Header
			if public > 0 {
				want = model[0]
				model = model[1:]
				public--
			}
			if got != want {
				t.Fatalf("step %d: Steal = %v, want %v (%d public of %d)", step, got, want, public, len(model))
			}
		}
		if d.OwnerLen() != len(model) || d.Len() != public || d.Private() != len(model)-public {
			t.Fatalf("step %d: OwnerLen %d, Len %d, Private %d; want %d, %d, %d", step,
				d.OwnerLen(), d.Len(), d.Private(), len(model), public, len(model)-public)
		}
	}
}

// TestDequeConcurrentSteals is the property test: an owner pushes and pops
// (Pop and PopIf) while thieves steal, through several ring growths; every
// element is taken exactly once, by the owner or by one thief.
func TestDequeConcurrentSteals(t *testing.T) {
	for _, thieves := range []int{1, 3, 7} {
		for round := 0; round < 5; round++ {
			checkNoLossNoDup(t, thieves, 200000, uint64(round))
		}
	}
}

func checkNoLossNoDup(t *testing.T, thieves, n int, seed uint64) {
	t.Helper()
	var d Deque
	items := make([]Header, n)
	index := make(map[*Header]int, n)
	for i := range items {
		index[&items[i]] = i
	}
	taken := make([]atomic.Int32, n)
	var done atomic.Bool
	var wg sync.WaitGroup
	take := func(x *Header) {
		i := index[x]
		if c := taken[i].Add(1); c != 1 {
			t.Errorf("element %d taken %d times", i, c)
		}
	}
	for i := 0; i < thieves; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				x, _ := d.Steal()
				if x != nil {
					take(x)
					continue
				}
				if done.Load() && d.Len() == 0 {
					return
				}
				runtime.Gosched()
			}
		}()
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	d.SetFloor(int(seed % 3))
	for i := 0; i < n; i++ {
		d.Push(&items[i])
		// Sometimes take the newest back as Join does: it races the
		// thieves when it is the last element.
		if rng.IntN(4) == 0 && d.PopIf(&items[i]) {
			take(&items[i])
		}
		// Release now and then, as an executor does when a worker looks
		// for work, so that thieves race for elements just published.
		if rng.IntN(8) == 0 {
			d.Release()
		}
		// Pop in bursts so the deque both grows and drains to its last
		// element, where the owner races the thieves.
		if rng.IntN(3) == 0 {
			for k := rng.IntN(4); k > 0; k-- {
				if x := d.Pop(); x != nil {
					take(x)
				}
			}
		}
	}
	for x := d.Pop(); x != nil; x = d.Pop() {
		take(x)
	}
	done.Store(true)
	wg.Wait()
	for i := range taken {
		if c := taken[i].Load(); c != 1 {
			t.Fatalf("thieves=%d: element %d taken %d times", thieves, i, c)
		}
	}
}

func TestDequeHolds(t *testing.T) {
	var d Deque
	a, b := new(Header), new(Header)
	ia, _ := d.Push(a)
	ib, _ := d.Push(b)
	if !d.Holds(ia, a) || !d.Holds(ib, b) || d.Holds(ia, b) {
		t.Fatal("Holds disagrees with the private contents")
	}
	if x, _ := d.Steal(); x != nil {
		t.Fatal("Steal took a private element")
	}
	d.Release()
	if !d.Holds(ia, a) || !d.Holds(ib, b) || d.Holds(ia, b) {
		t.Fatal("Holds disagrees with the public contents")
	}
	if x, _ := d.Steal(); x != a {
		t.Fatal("Steal did not take the oldest")
	}
	if d.Holds(ia, a) {
		t.Fatal("Holds reports a stolen element")
	}
	if d.Pop() != b || d.Holds(ib, b) {
		t.Fatal("Holds reports a popped element")
	}
}

// TestDequeHoldsAcrossTheSlotWrap: slots are the positions' low 32 bits,
// and Holds finds elements pushed on both sides of a wrap of them.
func TestDequeHoldsAcrossTheSlotWrap(t *testing.T) {
	var d Deque
	d.top.Store(1<<32 - 2)
	d.split.Store(1<<32 - 2)
	d.bottom, d.pub = 1<<32-2, 1<<32-2
	hs := make([]*Header, 5)
	slots := make([]uint32, 5)
	for i := range hs {
		hs[i] = new(Header)
		slots[i], _ = d.Push(hs[i])
		if i == 2 {
			d.Release() // the wrap falls inside the public part
		}
	}
	if slots[1] != 1<<32-1 || slots[2] != 0 {
		t.Fatalf("slots %v do not wrap", slots)
	}
	for i := range hs {
		if !d.Holds(slots[i], hs[i]) || d.Holds(slots[i], hs[(i+1)%5]) {
			t.Fatalf("Holds disagrees at %d", i)
		}
	}
	for i := 4; i >= 0; i-- {
		if d.Pop() != hs[i] || d.Holds(slots[i], hs[i]) {
			t.Fatalf("after popping %d, Holds still finds it", i)
		}
	}
}

// TestHeaderSize: a Header stays 32 bytes, so that small frames stay in a
// small size (BenchmarkSpawnGet; bench/README.md, "What profiling costs").
func TestHeaderSize(t *testing.T) {
	if n := unsafe.Sizeof(Header{}); n != 32 {
		t.Errorf("a Header takes %d bytes, want 32", n)
	}
}

// BenchmarkDequePushPop is the deque's own share of a spawn and its join:
// one push and one pop by the owner, with no thief about. The issue's
// 25 ns per spawn and Get must include this.
func BenchmarkDequePushPop(b *testing.B) {
	var d Deque
	d.Push(new(Header)) // so that Pop does not race for the last element
	h := new(Header)
	for b.Loop() {
		d.Push(h)
		if !d.PopIf(h) {
			b.Fatal("PopIf missed the newest element")
		}
	}
}

// TestDequeClearWhileThievesSteal: Clear runs between runs, when no owner
// uses the deque but a thief still may (the cluster lends from goroutines
// of its own). No element is taken twice, and top never passes split,
// which would lose the next run's first public task.
func TestDequeClearWhileThievesSteal(t *testing.T) {
	var d Deque
	const rounds, perRound = 2000, 5
	items := make([]Header, rounds*perRound)
	taken := make([]atomic.Int32, len(items))
	index := make(map[*Header]int, len(items))
	for i := range items {
		index[&items[i]] = i
	}
	var done atomic.Bool
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				if x, _ := d.Steal(); x != nil {
					taken[index[x]].Add(1)
				}
			}
		}()
	}
	for r := range rounds {
		if top, split := d.top.Load(), d.split.Load(); top > split {
			t.Fatalf("round %d: top %d past split %d", r, top, split)
		}
		for i := range perRound {
			d.Push(&items[r*perRound+i])
		}
		d.Release()
		if r%3 == 0 {
			if x := d.Pop(); x != nil {
				taken[index[x]].Add(1)
			}
		}
		d.Clear()
		if d.Len() != 0 || d.OwnerLen() != 0 {
			t.Fatalf("round %d: after Clear, Len %d, OwnerLen %d", r, d.Len(), d.OwnerLen())
		}
		runtime.Gosched()
	}
	done.Store(true)
	wg.Wait()
	for i := range taken {
		if c := taken[i].Load(); c > 1 {
			t.Fatalf("element %d taken %d times", i, c)
		}
	}
}
