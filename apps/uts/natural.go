package uts

import "github.com/tsys-go/tsys/tsys"

// Forking is the search written the natural way: a task per node, each
// child a Fork, with no fast clone and no ranges. It measures what natural
// code costs against Task (bench/README.md, "Natural code"). Binomial roots
// of thousands of children are forked one by one, so thieves take thin
// chains: it is for one node, not for a cluster.
var Forking *tsys.Task[Work, Counts]

func init() { Forking = tsys.Register("uts.forking", forking) }

func forking(c *tsys.Ctx, w Work) Counts {
	p := w.P
	var tab *shapeTable
	if p.Type != Binomial {
		tab = p.shape()
	}
	counts := Counts{Nodes: 1, MaxDepth: w.Node.Height}
	kids := p.numChildren(&w.Node, tab)
	if kids == 0 {
		counts.Leaves = 1
		return counts
	}
	var small [8]tsys.Forked[Counts]
	forks := small[:0]
	for i := range kids {
		forks = append(forks, Forking.Fork(c, Work{P: p, Node: p.Child(&w.Node, i)}))
	}
	for i := len(forks) - 1; i >= 0; i-- { // newest first
		counts.Add(forks[i].Join(c))
	}
	return counts
}
