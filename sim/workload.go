package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/tsys-go/tsys/apps/rt"
	"github.com/tsys-go/tsys/apps/uts"
	"github.com/tsys-go/tsys/internal/opts"
	"github.com/tsys-go/tsys/internal/xorshift"
)

// Task is one simulated task: what its workload needs to know its cost and
// to make its children. Lent tasks carry it whole, as a real task carries
// its argument.
type Task struct {
	// lo, hi: a range of leaves (ep, flat) or n (fib) in lo.
	lo, hi int64
	// node: a UTS tree node.
	node uts.Node
	// group is the lent subtree the task belongs to (groups.go); span its
	// clock on the critical path when it became ready.
	group int32
	span  time.Duration
	// lent marks a task as it travels to a borrower, the root of its own
	// group, not started: what a leaving borrower may hand back.
	lent bool
	// spawned: a worker pushed the task as a task, not a call, so it
	// costs Model.Spawn more.
	spawned bool
}

// Workload makes a task tree: a root, and for each task its own cost (the
// work it does before its children are ready) and its children, the
// oldest (largest) first, as a divide-and-conquer task spawns them. Its
// methods must be pure: the same task gives the same cost and children
// wherever it runs.
type Workload interface {
	Name() string
	Root() Task
	Cost(t *Task) time.Duration
	Children(t *Task, into []Task) []Task
	// CallsLast says whether a task's code runs its last child as a
	// direct call (Fork the others, then Call the last, as EP, fib, RT and
	// tsys.Loop do): that child is never a task, whatever the inlining
	// policy, and its parent's later work waits for it.
	CallsLast() bool
}

// ParseWorkload reads --app: ep[:leaves=N,leaf=D], fib[:n=N,leaf=D],
// uts[:tree=T,node=D], rt[:scene=S,w=W,h=H,level=L,leaf=PIXELS,costmap=FILE],
// flat[:iters=N,cost=D,spread=F,seed=S], replay:file=F (a tree tsys run
// --record-tree wrote).
func ParseWorkload(s string) (Workload, error) {
	name, list, _ := strings.Cut(s, ":")
	o, err := opts.Parse("", list)
	if err != nil {
		return nil, fmt.Errorf("--app %s: %w", s, err)
	}
	var w Workload
	switch name {
	case "ep":
		w = &EP{Leaves: o.Int("leaves", 1<<20), Leaf: o.Duration("leaf", 100*time.Microsecond, durationHint)}
	case "fib":
		w = &Fib{N: int(o.Int("n", 25)), Leaf: o.Duration("leaf", 50*time.Nanosecond, durationHint)}
	case "uts":
		tree, err := uts.Named(o.String("tree", "T1"))
		if err != nil {
			o.Fail("tree", err.Error())
			break
		}
		w = &UTS{Tree: tree, PerNode: o.Duration("node", 90*time.Nanosecond, durationHint)}
	case "rt":
		job := rt.DefaultJob()
		id, err := rt.SceneID(o.String("scene", "balls"))
		if err != nil {
			o.Fail("scene", err.Error())
			break
		}
		job.Scene = id
		job.Width = int32(o.IntUpTo("w", int64(job.Width), rt.MaxSize))
		job.Height = int32(o.IntUpTo("h", int64(job.Height), rt.MaxSize))
		if _, most, def, ok := rt.LevelRange(id); ok {
			job.Level = int32(o.IntUpTo("level", int64(def), int64(most)))
		}
		leaf := int(o.Int("leaf", 1024))
		costmap := o.String("costmap", "")
		serial := o.Duration("serial", 0, durationHint)
		if o.Failed() {
			break
		}
		r, err := newRT(job, leaf, costmap)
		if err != nil {
			return nil, fmt.Errorf("--app %s: %w", s, err)
		}
		if serial > 0 {
			r.Map.scaleTo(serial)
		}
		w = r
	case "replay":
		path := o.String("file", "")
		if path == "" {
			o.Fail("file", "want the file tsys run --record-tree wrote")
			break
		}
		r, err := loadReplay(path)
		if err != nil {
			return nil, fmt.Errorf("--app %s: %w", s, err)
		}
		w = r
	case "flat":
		w = &Flat{Iters: o.Int("iters", 1<<12), Mean: o.Duration("cost", 200*time.Microsecond, durationHint), Spread: o.Float("spread", 1, false, "want a number of at least 0"), Seed: uint64(o.Int("seed", 1))}
	default:
		return nil, fmt.Errorf("--app %q: unknown workload; want ep, fib, uts, rt, flat or replay, with options after a colon (ep:leaves=1048576,leaf=100us)", s)
	}
	if err := o.Err("the options of " + name + " (tsys sim -h)"); err != nil {
		return nil, fmt.Errorf("--app %s: %w", s, err)
	}
	return w, nil
}

// durationHint says what a workload's duration options want.
const durationHint = "want a positive duration such as 100us"

// EP is NAS EP's shape: a balanced binary split of Leaves equal batches,
// each Leaf long; inner tasks only split.
type EP struct {
	Leaves int64
	Leaf   time.Duration
}

func (w *EP) Name() string { return fmt.Sprintf("ep:leaves=%d,leaf=%v", w.Leaves, w.Leaf) }
func (w *EP) Root() Task   { return Task{lo: 0, hi: w.Leaves} }
func (w *EP) Cost(t *Task) time.Duration {
	if t.hi-t.lo == 1 {
		return w.Leaf
	}
	return 0
}
func (w *EP) CallsLast() bool                      { return true }
func (w *EP) Children(t *Task, into []Task) []Task { return split(t, into) }

// split halves a range task, the first half first.
func split(t *Task, into []Task) []Task {
	if t.hi-t.lo <= 1 {
		return into
	}
	mid := t.lo + (t.hi-t.lo)/2
	return append(into, Task{lo: t.lo, hi: mid}, Task{lo: mid, hi: t.hi})
}

// Fib is fib(N)'s call tree without inlining: every call a task, each
// Leaf long.
type Fib struct {
	N    int
	Leaf time.Duration
}

func (w *Fib) Name() string               { return fmt.Sprintf("fib:n=%d,leaf=%v", w.N, w.Leaf) }
func (w *Fib) Root() Task                 { return Task{lo: int64(w.N)} }
func (w *Fib) Cost(t *Task) time.Duration { return w.Leaf }
func (w *Fib) CallsLast() bool            { return true }
func (w *Fib) Children(t *Task, into []Task) []Task {
	if t.lo < 2 {
		return into
	}
	return append(into, Task{lo: t.lo - 1}, Task{lo: t.lo - 2})
}

// UTS is a UTS sample tree made by the real SHA-1 generator, every node a
// task of PerNode.
type UTS struct {
	Tree    uts.Tree
	PerNode time.Duration
}

func (w *UTS) Name() string               { return fmt.Sprintf("uts:tree=%s,node=%v", w.Tree.Name, w.PerNode) }
func (w *UTS) Root() Task                 { return Task{node: w.Tree.Params.Root()} }
func (w *UTS) Cost(t *Task) time.Duration { return w.PerNode }
func (w *UTS) CallsLast() bool            { return false }
func (w *UTS) Children(t *Task, into []Task) []Task {
	p := &w.Tree.Params
	n := p.NumChildren(&t.node)
	for i := range n {
		into = append(into, Task{node: p.Child(&t.node, i)})
	}
	return into
}

// Flat is a parallel loop of Iters iterations split lazily in halves, as
// tsys.Loop splits it, whose costs differ: iteration i costs Mean times a
// factor drawn from [1-Spread/2, 1+Spread/2] by a generator seeded with
// Seed and i (Siegell's DOALL loops of uneven iterations).
type Flat struct {
	Iters  int64
	Mean   time.Duration
	Spread float64
	Seed   uint64
}

func (w *Flat) Name() string {
	return fmt.Sprintf("flat:iters=%d,cost=%v,spread=%g,seed=%d", w.Iters, w.Mean, w.Spread, w.Seed)
}
func (w *Flat) Root() Task { return Task{lo: 0, hi: w.Iters} }
func (w *Flat) Cost(t *Task) time.Duration {
	if t.hi-t.lo != 1 {
		return 0
	}
	r := xorshift.Seed(w.Seed*0x9e3779b97f4a7c15 + uint64(t.lo) + 1)
	u := float64(r.Next()>>11) / (1 << 53)
	return time.Duration(max(0, float64(w.Mean)*(1+w.Spread*(u-0.5))))
}
func (w *Flat) CallsLast() bool                      { return true }
func (w *Flat) Children(t *Task, into []Task) []Task { return split(t, into) }
