package advise

import (
	"fmt"
	"math"
	"time"

	"github.com/tsys-go/tsys/sim"
)

// A recorded tree (tsys run --record-tree) is the program's spawn tree
// with inlining off, every spawn a task, each costing what its frame did
// while the recorder watched. The advisor replays it in the simulator,
// which needs two corrections first: Fold, because a tree of a hundred
// million tasks is too big to replay for each of the dozens of
// configurations the advisor compares, and Scale, because the recorder's
// own bookkeeping and the spawns themselves inflate each frame's time.

// TreeShape is what a recorded tree says of the program: its work T1 and
// span T∞ (the costliest chain), its task count and the spread of its
// tasks' own costs.
type TreeShape struct {
	Tasks int           `json:"tasks"`
	Work  time.Duration `json:"work_ns"`
	Span  time.Duration `json:"span_ns"`
	// Median and P90 are the median and 90th percentile of the tasks'
	// own costs.
	Median time.Duration `json:"median_task_ns"`
	P90    time.Duration `json:"p90_task_ns"`
}

// Shape measures t.
func Shape(t sim.Tree) TreeShape {
	n := len(t.Parent)
	s := TreeShape{Tasks: n}
	if n == 0 {
		return s
	}
	// Parents come before their children, so one pass from the last task
	// up carries each subtree's costliest chain to its parent.
	chain := make([]int64, n)
	costs := make([]int64, n)
	for i := n - 1; i >= 0; i-- {
		chain[i] += t.WorkNs[i]
		costs[i] = t.WorkNs[i]
		s.Work += time.Duration(t.WorkNs[i])
		if p := t.Parent[i]; p >= 0 {
			chain[p] = max(chain[p], chain[i])
		}
	}
	s.Span = time.Duration(chain[0])
	s.Median = time.Duration(quantile(costs, 0.5))
	s.P90 = time.Duration(quantile(costs, 0.9))
	return s
}

// quantile is the q-quantile of xs, which it reorders.
func quantile(xs []int64, q float64) int64 {
	k := int(q * float64(len(xs)-1))
	return nthElement(xs, k)
}

// nthElement is the k-th smallest of xs (quickselect), reordering xs.
func nthElement(xs []int64, k int) int64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		pivot := xs[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}

// Fold makes every subtree of t whose whole work is under grain one task
// of that work, keeping the tasks' order. A subtree that small is not
// worth a message between nodes (grain is a message's cost), and within a
// node it delays the end of a run by at most grain a worker; so the
// folded tree schedules as the whole one does, and it has at most about
// T1/grain tasks, whatever the program's own grain.
func Fold(t sim.Tree, grain time.Duration) sim.Tree {
	n := len(t.Parent)
	if n == 0 {
		return t
	}
	total := make([]int64, n)
	copy(total, t.WorkNs)
	for i := n - 1; i > 0; i-- {
		total[t.Parent[i]] += total[i]
	}
	// index[i] is task i's index in the folded tree; -1 when it is inside
	// a folded subtree. folded[i]: task i is a folded subtree's root.
	index := make([]int32, n)
	folded := make([]bool, n)
	out := sim.Tree{App: t.App}
	for i := range n {
		p := t.Parent[i]
		if p >= 0 && (index[p] < 0 || folded[p]) {
			index[i] = -1
			continue
		}
		index[i] = int32(len(out.Parent))
		work := t.WorkNs[i]
		if i > 0 && total[i] < int64(grain) {
			folded[i], work = true, total[i]
		}
		parent := int32(-1)
		if p >= 0 {
			parent = index[p]
		}
		out.Parent = append(out.Parent, parent)
		out.WorkNs = append(out.WorkNs, work)
	}
	return out
}

// Scale returns t with every task's cost multiplied by work/T1(t), so that
// the tasks' costs add up to work, as measured by a run without the
// recorder. The recorder's overhead is about the same at every frame, so
// the scaled costs keep the recorded tree's proportions.
func Scale(t sim.Tree, work time.Duration) (sim.Tree, error) {
	var sum int64
	for _, w := range t.WorkNs {
		sum += w
	}
	if sum <= 0 || work <= 0 {
		return t, fmt.Errorf("the recorded tree's work is %v and the run's %v: nothing to scale", time.Duration(sum), work)
	}
	// Each task gets the rounded running total less the one before it, so
	// that a million tasks of a few nanoseconds lose nothing to rounding.
	f := float64(work) / float64(sum)
	out := sim.Tree{App: t.App, Parent: t.Parent, WorkNs: make([]int64, len(t.WorkNs))}
	var before, done int64
	for i, w := range t.WorkNs {
		before += w
		next := int64(math.Round(float64(before) * f))
		out.WorkNs[i], done = next-done, next
	}
	return out, nil
}
