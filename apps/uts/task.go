package uts

import (
	"encoding/binary"
	"fmt"

	"github.com/tsys-go/tsys/tsys"
)

// Work is a task of the parallel search: a node to expand and the tree's
// parameters. With Hi > 0 it is instead the children [Lo, Hi) of Node.
// Kids, when not zero, is the node's number of children plus one, as its
// parent already computed it.
//
// P points to parameters every task of one search shares and none writes:
// a task frame holds 56 bytes of argument rather than 104, copied into the
// frame and out again for every task that is not inlined (UTS T3 on 2
// workers makes 60-80k of them). On the wire a Work carries its Params by
// value (MarshalBinary).
type Work struct {
	P      *Params
	Node   Node
	Lo, Hi int32
	Kids   int32
	// tab is P's shape table, as the parent task looked it up: one lookup
	// per search on a node rather than one per node (it is not sent; the
	// task looks it up where it lands).
	tab *shapeTable
}

// wireWork is Work as it crosses nodes: fixed-size, for encoding/binary.
type wireWork struct {
	P      Params
	Node   Node
	Lo, Hi int32
	Kids   int32
}

// MarshalBinary encodes w with its parameters, for a task lent to another
// node.
func (w *Work) MarshalBinary() ([]byte, error) {
	x := wireWork{Node: w.Node, Lo: w.Lo, Hi: w.Hi, Kids: w.Kids}
	if w.P != nil {
		x.P = *w.P
	}
	return binary.Append(nil, binary.LittleEndian, &x)
}

// UnmarshalBinary decodes a lent task, refusing parameters that Validate
// would refuse on the command line: they come from the network.
func (w *Work) UnmarshalBinary(b []byte) error {
	var x wireWork
	if len(b) != binary.Size(&x) {
		return fmt.Errorf("uts work: want %d bytes, got %d", binary.Size(&x), len(b))
	}
	if _, err := binary.Decode(b, binary.LittleEndian, &x); err != nil {
		return fmt.Errorf("uts work: %w", err)
	}
	if x.P != (Params{}) {
		if err := x.P.Validate(); err != nil {
			return fmt.Errorf("uts work: %w", err)
		}
	}
	p := x.P
	*w = Work{P: &p, Node: x.Node, Lo: x.Lo, Hi: x.Hi, Kids: x.Kids}
	return nil
}

// wide is the number of children above which a node's children are
// spawned as a range that splits in halves rather than one by one. A binomial root
// has 2000 children, each the start of a thin chain: spawned in a loop, a
// thief takes one chain at a time and soon only crumbs; split in halves, a
// thief takes half of what is left (bench/README.md, "UTS T3 on 2
// workers").
const wide = 32

// Task searches the subtree below a node, one task per child: search's
// natural code, registered by its fast clone's name. go generate writes
// searchClone (tsys_clone.go) from search, the search with each Fork a
// plain call and each Join the value, which runs while enough tasks are
// ready (package internal/clonegen). Work crosses nodes as wireWork, its
// parameters by value (MarshalBinary).
var Task *tsys.Task[Work, Counts]

func init() { Task = tsys.Register("uts.search", searchClone) }

//go:generate go run github.com/tsys-go/tsys/cmd/tsysclone

func search(c *tsys.Ctx, w Work) Counts {
	if w.Hi > 0 {
		return children(c, w)
	}
	p := w.P
	tab := w.tab
	if tab == nil && p.Type != Binomial {
		tab = p.shape()
	}
	kids := int(w.Kids) - 1
	if w.Kids == 0 {
		kids = p.numChildren(&w.Node, tab)
	}
	counts := Counts{Nodes: 1, Leaves: 0, MaxDepth: w.Node.Height}
	if kids == 0 {
		counts.Leaves = 1
		return counts
	}
	if kids > wide {
		counts.Add(children(c, Work{P: p, Node: w.Node, Lo: 0, Hi: int32(kids)}))
		return counts
	}
	// The parent's part of the hash message is built once for all its
	// children, as the serial search does.
	var msg [24]byte
	copy(msg[:20], w.Node.State[:])
	child := Node{Height: w.Node.Height + 1}
	// Most forks run as plain calls and come back ready: add those at
	// once, and keep only the others (a few: the deque holds K). In the
	// clone every fork is ready, and pending stays empty: nothing to zero
	// or to grow.
	var pending []tsys.Forked[Counts]
	for i := range kids {
		p.hashChild(&msg, i, &child.State)
		// A leaf is counted here rather than forked: most nodes of the
		// sample trees are leaves (T3: 87.5%), and as tasks they are what
		// thieves end up trading once the large subtrees are gone.
		k := p.numChildren(&child, tab)
		if k == 0 {
			counts.Add(Counts{Nodes: 1, Leaves: 1, MaxDepth: child.Height})
			continue
		}
		f := Task.Fork(c, Work{P: p, Node: child, Kids: int32(k) + 1, tab: tab})
		if f.Ready() {
			counts.Add(f.Join(c))
		} else {
			pending = append(pending, f)
		}
	}
	for i := len(pending) - 1; i >= 0; i-- { // newest first: it may still be in the deque
		counts.Add(pending[i].Join(c))
	}
	return counts
}

// children searches the subtrees of children [Lo, Hi) of w.Node, halving
// the range.
func children(c *tsys.Ctx, w Work) Counts {
	if w.Hi-w.Lo == 1 {
		return search(c, Work{P: w.P, Node: w.P.Child(&w.Node, int(w.Lo))})
	}
	mid := w.Lo + (w.Hi-w.Lo)/2
	first := Task.Fork(c, Work{P: w.P, Node: w.Node, Lo: w.Lo, Hi: mid})
	total := Task.Call(c, Work{P: w.P, Node: w.Node, Lo: mid, Hi: w.Hi})
	total.Add(first.Join(c))
	return total
}

// RootWork is the task that searches the whole tree.
func RootWork(p Params) Work { return Work{P: &p, Node: p.Root()} }
