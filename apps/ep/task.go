package ep

import "github.com/tsys-go/tsys/tsys"

// Range is a task of the parallel EP: the batches [Lo, Hi) and how many
// batches a leaf runs. As in the NewTS EP, the range is bisected into a
// binary tree whose two halves always cost the same.
type Range struct {
	Lo, Hi int32
	Leaf   int32
}

// Task runs a batch range, splitting it in two until it is a leaf.
var Task *tsys.Task[Range, Result]

func init() { Task = tsys.Register("ep.range", run) }

func run(c *tsys.Ctx, r Range) Result {
	if r.Hi-r.Lo <= max(r.Leaf, 1) {
		res := Batches(int(r.Lo), int(r.Hi))
		// The progress bar of tsys run and the dashboard, in batches. A
		// range that starts at 0 names its end as the total: the largest
		// named, the root's, is the job's.
		total := int64(0)
		if r.Lo == 0 {
			total = int64(r.Hi)
		}
		c.AddProgress(int64(r.Hi-r.Lo), total)
		return res
	}
	if r.Lo == 0 {
		c.AddProgress(0, int64(r.Hi))
	}
	mid := r.Lo + (r.Hi-r.Lo)/2
	left := Task.Fork(c, Range{Lo: r.Lo, Hi: mid, Leaf: r.Leaf})
	right := Task.Call(c, Range{Lo: mid, Hi: r.Hi, Leaf: r.Leaf})
	total := left.Join(c)
	total.Add(right)
	return total
}

// Whole is the root range of a class with the given leaf size in batches.
func (c Class) Whole(leaf int) Range {
	return Range{Lo: 0, Hi: int32(c.Batches()), Leaf: int32(leaf)}
}
