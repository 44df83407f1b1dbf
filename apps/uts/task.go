package uts

import "github.com/tsys-go/tsys/tsys"

// Work is a task of the parallel search: a node to expand and the tree's
// parameters (fixed-size, so a task crosses nodes as a few dozen bytes).
// With Hi > 0 it is instead the children [Lo, Hi) of Node. Kids, when not
// zero, is the node's number of children plus one, as its parent already
// computed it.
type Work struct {
	P      Params
	Node   Node
	Lo, Hi int32
	Kids   int32
}

// wide is the number of children above which a node's children are
// spawned as a range that splits in halves rather than one by one. A binomial root
// has 2000 children, each the start of a thin chain: spawned in a loop, a
// thief takes one chain at a time and soon only crumbs; split in halves, a
// thief takes half of what is left (2 workers on T3: 1.11x -> see
// bench/README.md).
const wide = 32

// Task searches the subtree below a node, one task per child.
var Task *tsys.Task[Work, Counts]

func init() { Task = tsys.Register("uts.search", search) }

func search(c *tsys.Ctx, w Work) Counts {
	if w.Hi > 0 {
		return children(c, w)
	}
	self := Counts{Nodes: 1, MaxDepth: w.Node.Height}
	// The shape table once per task, as the serial search takes it once
	// per search: looking it up at every child cost more than the spawns.
	var tab *shapeTable
	if w.P.Type != Binomial {
		tab = w.P.shape()
	}
	n := int(w.Kids) - 1
	if w.Kids == 0 {
		n = w.P.numChildren(&w.Node, tab)
	}
	if n == 0 {
		self.Leaves = 1
		return self
	}
	if n > wide {
		self.Add(children(c, Work{P: w.P, Node: w.Node, Lo: 0, Hi: int32(n)}))
		return self
	}
	// Most children are leaves, counted below: room for 8 spawned ones on
	// the stack covers nearly every node (zeroing room for more cost time).
	var small [8]tsys.Future[Counts]
	futures := small[:0]
	// The parent's part of the hash message is built once for all its
	// children, as the serial search does.
	var msg [24]byte
	copy(msg[:20], w.Node.State[:])
	for i := 0; i < n; i++ {
		child := Work{P: w.P, Node: Node{Height: w.Node.Height + 1}}
		w.P.hashChild(&msg, i, &child.Node.State)
		// A leaf is counted here rather than spawned: most nodes of the
		// sample trees are leaves (T3: 87.5%), and as tasks they are what
		// thieves end up trading once the large subtrees are gone.
		kids := w.P.numChildren(&child.Node, tab)
		if kids == 0 {
			self.Add(Counts{Nodes: 1, Leaves: 1, MaxDepth: child.Node.Height})
			continue
		}
		child.Kids = int32(kids) + 1
		futures = append(futures, Task.Spawn(c, child))
	}
	for i := len(futures) - 1; i >= 0; i-- {
		self.Add(futures[i].Get(c))
	}
	return self
}

// children searches the subtrees of children [Lo, Hi) of w.Node, halving
// the range.
func children(c *tsys.Ctx, w Work) Counts {
	if w.Hi-w.Lo == 1 {
		return search(c, Work{P: w.P, Node: w.P.Child(&w.Node, int(w.Lo))})
	}
	mid := w.Lo + (w.Hi-w.Lo)/2
	first := Task.Spawn(c, Work{P: w.P, Node: w.Node, Lo: w.Lo, Hi: mid})
	total := Task.Call(c, Work{P: w.P, Node: w.Node, Lo: mid, Hi: w.Hi})
	total.Add(first.Get(c))
	return total
}

// RootWork is the task that searches the whole tree.
func RootWork(p Params) Work { return Work{P: p, Node: p.Root()} }
