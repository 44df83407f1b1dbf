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
// a task frame holds 48 bytes of argument rather than 96, copied into the
// frame and out again for every task that is not inlined (UTS T3 on 2
// workers makes 60-80k of them). On the wire a Work carries its Params by
// value (MarshalBinary).
type Work struct {
	P      *Params
	Node   Node
	Lo, Hi int32
	Kids   int32
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

// Task searches the subtree below a node, one task per child. Work
// crosses nodes as wireWork, its parameters by value (MarshalBinary).
var Task *tsys.Task[Work, Counts]

func init() { Task = tsys.Register("uts.search", search) }

func search(c *tsys.Ctx, w Work) Counts {
	if w.Hi > 0 {
		return children(c, w)
	}
	s := searcher{p: w.P, c: c}
	// The shape table once per task, as the serial search takes it once
	// per search: looking it up at every child cost more than the spawns.
	if w.P.Type != Binomial {
		s.tab = w.P.shape()
	}
	kids := int(w.Kids) - 1
	if w.Kids == 0 {
		kids = w.P.numChildren(&w.Node, s.tab)
	}
	s.expand(&w.Node, kids)
	return s.counts()
}

// expand counts node n, which has kids children, and searches below it. It
// is the serial visit with a question before each child that has children
// of its own: the fast clone. While the inlining policy answers yes, the
// search is plain recursion on this task's counters; at the first no, the
// rest of n's children go to spawnRest.
func (s *searcher) expand(n *Node, kids int) {
	s.nodes++
	s.maxDepth = max(s.maxDepth, n.Height)
	if kids == 0 {
		s.leaves++
		return
	}
	if kids > wide {
		s.add(children(s.c, Work{P: s.p, Node: *n, Lo: 0, Hi: int32(kids)}))
		return
	}
	// The parent's part of the hash message is built once for all its
	// children, as the serial search does.
	var msg [24]byte
	copy(msg[:20], n.State[:])
	child := Node{Height: n.Height + 1}
	for i := range kids {
		s.p.hashChild(&msg, i, &child.State)
		// A leaf is counted here rather than spawned: most nodes of the
		// sample trees are leaves (T3: 87.5%), and as tasks they are what
		// thieves end up trading once the large subtrees are gone.
		k := s.p.numChildren(&child, s.tab)
		if k == 0 {
			s.countLeaf(child.Height)
			continue
		}
		if !s.c.AllowCCall() {
			s.spawnRest(&msg, i, &child, k, kids)
			return
		}
		s.expand(&child, k)
	}
}

// spawnRest spawns child i (with k children of its own) of the node whose
// hash message is msg, then goes on with children i+1 to kids-1 as expand
// does, and waits for what it spawned. It is apart from expand so that
// expand, which nearly every node runs, keeps a small frame with no futures
// in it.
// It is never inlined, even where the inliner would (profile-guided builds
// inline hot calls beyond the usual budget): keeping it apart is the point.
//
//go:noinline
func (s *searcher) spawnRest(msg *[24]byte, i int, child *Node, k, kids int) {
	// Room for 8 spawned children on the stack covers nearly every node
	// (zeroing room for more cost time).
	var small [8]tsys.Forked[Counts]
	futures := append(small[:0], fork(s.c, Work{P: s.p, Node: *child, Kids: int32(k) + 1}))
	for i++; i < kids; i++ {
		s.p.hashChild(msg, i, &child.State)
		k := s.p.numChildren(child, s.tab)
		switch {
		case k == 0:
			s.countLeaf(child.Height)
		case s.c.AllowCCall():
			s.expand(child, k)
		default:
			futures = append(futures, fork(s.c, Work{P: s.p, Node: *child, Kids: int32(k) + 1}))
		}
	}
	// Newest first: the one still at the bottom of the deque, if any, is
	// the next to be popped.
	for i := len(futures) - 1; i >= 0; i-- {
		s.add(futures[i].Join(s.c))
	}
}

// fork is Task.Fork kept a call. Fork's fast path inlines into the code
// that calls it, and a Work (five fields, too many for the compiler to keep
// in registers) then makes its way to the task function through memory,
// where a call passes it in registers (bench/README.md, "Natural code").
//
//go:noinline
func fork(c *tsys.Ctx, w Work) tsys.Forked[Counts] { return Task.Fork(c, w) }

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
