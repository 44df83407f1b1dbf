package uts

// Counts summarises a (sub)tree.
type Counts struct {
	Nodes, Leaves int64
	MaxDepth      int32 // greatest height, measured from the global root
}

// Add merges o into c, so that per-subtree results combine in any order.
func (c *Counts) Add(o Counts) {
	c.Nodes += o.Nodes
	c.Leaves += o.Leaves
	c.MaxDepth = max(c.MaxDepth, o.MaxDepth)
}

// Serial searches the whole tree on the calling goroutine: the T_S
// baseline against which parallel versions are measured.
func Serial(p Params) Counts {
	return p.SearchFrom(p.Root())
}

// SearchFrom searches the subtree rooted at n serially. MaxDepth is an
// absolute height, so results from different subtrees merge with Add.
func (p *Params) SearchFrom(n Node) Counts {
	s := searcher{p: p}
	if p.Type != Binomial {
		s.tab = p.shape()
	}
	s.visit(&n)
	return s.counts()
}

// searcher keeps the counters and the shape table of the serial search
// (visit) out of the recursive calls' arguments.
type searcher struct {
	p        *Params
	tab      *shapeTable
	nodes    int64
	leaves   int64
	maxDepth int32
}

func (s *searcher) counts() Counts {
	return Counts{Nodes: s.nodes, Leaves: s.leaves, MaxDepth: s.maxDepth}
}

// visit recurses rather than keeping an explicit stack, which is faster
// (BenchmarkApps/utsT1/serial): each frame holds a single Node and the
// parent's message is built once for all its children. Depth is at most tens of thousands of
// levels (T3L), well within a goroutine stack.
func (s *searcher) visit(n *Node) {
	s.nodes++
	if n.Height > s.maxDepth {
		s.maxDepth = n.Height
	}
	nc := s.p.numChildren(n, s.tab)
	if nc == 0 {
		s.leaves++
		return
	}
	var msg [24]byte
	copy(msg[:20], n.State[:])
	c := Node{Height: n.Height + 1}
	for i := range nc {
		s.p.hashChild(&msg, i, &c.State)
		s.visit(&c)
	}
}
