package uts

import "github.com/tsys-go/tsys/tsys"

// Work is a task of the parallel search: a node to expand and the tree's
// parameters (fixed-size, so a task crosses nodes as a few dozen bytes).
type Work struct {
	P    Params
	Node Node
}

// Task searches the subtree below a node, one task per child.
var Task *tsys.Task[Work, Counts]

func init() { Task = tsys.Register("uts.search", search) }

func search(c *tsys.Ctx, w Work) Counts {
	n := w.P.NumChildren(&w.Node)
	if n == 0 {
		return Counts{Nodes: 1, Leaves: 1, MaxDepth: w.Node.Height}
	}
	// Most nodes have few children; zeroing room for the maximum (100)
	// at every node cost a third of the search.
	var small [8]tsys.Future[Counts]
	futures := small[:0]
	if n > len(small) {
		futures = make([]tsys.Future[Counts], 0, n)
	}
	for i := 0; i < n; i++ {
		futures = append(futures, Task.Spawn(c, Work{P: w.P, Node: w.P.Child(&w.Node, i)}))
	}
	total := Counts{Nodes: 1, MaxDepth: w.Node.Height}
	for i := len(futures) - 1; i >= 0; i-- {
		total.Add(futures[i].Get(c))
	}
	return total
}

// RootWork is the task that searches the whole tree.
func RootWork(p Params) Work { return Work{P: p, Node: p.Root()} }
