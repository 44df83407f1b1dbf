package advise

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tsys-go/tsys/sim"
)

// A small tree: 0 spawns 1 and 4; 1 spawns 2 and 3.
//
//	0 (10)
//	├── 1 (5)
//	│   ├── 2 (1)
//	│   └── 3 (2)
//	└── 4 (30)
var small = sim.Tree{App: "t", Parent: []int32{-1, 0, 1, 1, 0}, WorkNs: []int64{10, 5, 1, 2, 30}}

func TestShape(t *testing.T) {
	s := Shape(small)
	want := TreeShape{Tasks: 5, Work: 48, Span: 40, Median: 5, P90: 10}
	if s != want {
		t.Fatalf("Shape = %+v, want %+v", s, want)
	}
}

func TestFold(t *testing.T) {
	for _, c := range []struct {
		grain time.Duration
		want  sim.Tree
	}{
		// Nothing is under 1: the tree as it is.
		{1, small},
		// Subtree 1 weighs 8: one task of 8; 4 weighs 30 and stays.
		{9, sim.Tree{App: "t", Parent: []int32{-1, 0, 0}, WorkNs: []int64{10, 8, 30}}},
		// Task 2 alone is under 2: a leaf already, unchanged.
		{2, small},
		// Everything under the root folds; the root never does.
		{1000, sim.Tree{App: "t", Parent: []int32{-1, 0, 0}, WorkNs: []int64{10, 8, 30}}},
	} {
		got := Fold(small, c.grain)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Fold(%v) = %+v, want %+v", c.grain, got, c.want)
		}
		if Shape(got).Work != Shape(small).Work {
			t.Errorf("Fold(%v) changed the work: %v", c.grain, Shape(got).Work)
		}
	}
}

// TestFoldKeepsOrder: a deeper tree, folded, keeps its tasks' order and
// its parents before their children, as the simulator's replay wants.
func TestFoldKeepsOrder(t *testing.T) {
	tr := sim.Tree{Parent: []int32{-1}, WorkNs: []int64{1}}
	// A complete binary tree of depth 10, spawned depth first.
	var grow func(parent int32, depth int)
	grow = func(parent int32, depth int) {
		if depth == 0 {
			return
		}
		for range 2 {
			tr.Parent = append(tr.Parent, parent)
			tr.WorkNs = append(tr.WorkNs, 100)
			grow(int32(len(tr.Parent)-1), depth-1)
		}
	}
	grow(0, 10)
	f := Fold(tr, 1000)
	for i, p := range f.Parent[1:] {
		if p < 0 || int(p) > i {
			t.Fatalf("task %d has parent %d", i+1, p)
		}
	}
	// A subtree of 4 levels weighs 1500 and stays; of 3 levels, 700, and
	// folds: levels 0 to 7 stay (255 tasks), level 8's 256 subtrees fold.
	if len(f.Parent) != 511 || Shape(f).Work != Shape(tr).Work {
		t.Fatalf("folded to %d tasks of work %v, want 511 of %v", len(f.Parent), Shape(f).Work, Shape(tr).Work)
	}
}

func TestScale(t *testing.T) {
	got, err := Scale(small, 96)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.WorkNs, []int64{20, 10, 2, 4, 60}) {
		t.Fatalf("Scale(96) = %v", got.WorkNs)
	}
	// Many tasks of a nanosecond scaled by 1.5 add up exactly.
	ones := sim.Tree{Parent: make([]int32, 1001), WorkNs: slices.Repeat([]int64{1}, 1001)}
	if got, _ := Scale(ones, 1500); Shape(got).Work != 1500 {
		t.Fatalf("1001 tasks of 1 ns scaled to 1500 ns add up to %v", Shape(got).Work)
	}
	if _, err := Scale(sim.Tree{Parent: []int32{-1}, WorkNs: []int64{0}}, 5); err == nil {
		t.Fatal("a tree of no work scaled")
	}
}
