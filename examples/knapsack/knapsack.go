package main

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tsys-go/tsys/tsys"
)

// Instance names a 0/1 knapsack problem: N items made from Seed, their
// values close to their weights (the hard, strongly correlated kind), and
// a knapsack of half their total weight. Every process makes the same
// items from it, so a task carries only this. Job is the job's own
// number: the best value found so far is kept per job (see problem).
type Instance struct {
	Seed uint64
	N    int32
	Job  uint32
}

// problem is an instance's items, best value per weight first, and
// capacity.
type problem struct {
	w, v     []int64
	capacity int64
	// best is the best value of a packing that this job has reached in
	// this process: the bound below which the search prunes. Kept per job
	// and per process, not shared through memory across nodes, so a node
	// prunes by what it has seen of the job; a node's best from another
	// job would prune, unseen by the root, the packing that reaches it.
	best atomic.Int64
}

// problems are the instances of the jobs this process has seen lately:
// a few, since a node serves one job or a few at a time. Forgetting one
// whose job still runs is safe: its tasks start again from a bound of
// nothing, which only prunes less.
var problems struct {
	sync.Mutex
	byInstance map[Instance]*problem
	order      []Instance
}

const problemsKept = 8

func (in Instance) problem() *problem {
	problems.Lock()
	defer problems.Unlock()
	if p, ok := problems.byInstance[in]; ok {
		return p
	}
	if problems.byInstance == nil {
		problems.byInstance = map[Instance]*problem{}
	}
	if len(problems.order) == problemsKept {
		delete(problems.byInstance, problems.order[0])
		problems.order = problems.order[1:]
	}
	p := in.make()
	problems.byInstance[in] = p
	problems.order = append(problems.order, in)
	return p
}

// make makes the instance's items.
func (in Instance) make() *problem {
	r := rand.New(rand.NewPCG(in.Seed, uint64(in.N)))
	type item struct{ w, v int64 }
	items := make([]item, in.N)
	var total int64
	for i := range items {
		w := 1 + r.Int64N(1000)
		items[i] = item{w, w + 100}
		total += w
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(b.v*a.w, a.v*b.w) })
	p := &problem{capacity: total / 2}
	for _, it := range items {
		p.w, p.v = append(p.w, it.w), append(p.v, it.v)
	}
	return p
}

// bound is the value of the fractional relaxation from item i on, with
// room left: no packing of the rest is worth more.
func (p *problem) bound(i int, room int64) int64 {
	var b int64
	for ; i < len(p.w); i++ {
		if p.w[i] > room {
			return b + p.v[i]*room/p.w[i]
		}
		room -= p.w[i]
		b += p.v[i]
	}
	return b
}

// Node is a node of the search: items before I decided, with Weight and
// Value packed so far.
type Node struct {
	Instance
	I             int32
	Weight, Value int64
}

// Found is a search's answer: the best value reached below a node, and how
// many nodes it looked at.
type Found struct{ Best, Nodes int64 }

func (a Found) merge(b Found) Found { return Found{max(a.Best, b.Best), a.Nodes + b.Nodes} }

// expand looks at node n: it records a packing better than the best, and
// says whether the search must go on below n, and with which children,
// the more promising (take item I) first.
func expand(p *problem, n Node) (f Found, take, skip Node, more, canTake bool) {
	f = Found{Best: n.Value, Nodes: 1}
	for {
		old := p.best.Load()
		if n.Value <= old || p.best.CompareAndSwap(old, n.Value) {
			break
		}
	}
	room := p.capacity - n.Weight
	if int(n.I) == len(p.w) || n.Value+p.bound(int(n.I), room) <= p.best.Load() {
		return f, take, skip, false, false
	}
	skip = Node{n.Instance, n.I + 1, n.Weight, n.Value}
	if p.w[n.I] <= room {
		take = Node{n.Instance, n.I + 1, n.Weight + p.w[n.I], n.Value + p.v[n.I]}
		canTake = true
	}
	return f, take, skip, true, canTake
}

// serial is the search in its own order: the more promising child first,
// so that the best found so far prunes the other.
func serial(p *problem, n Node) Found {
	f, take, skip, more, canTake := expand(p, n)
	if !more {
		return f
	}
	if canTake {
		f = f.merge(serial(p, take))
	}
	return f.merge(serial(p, skip))
}

// Natural forks the promising child and searches the other meanwhile, as
// a first parallel version would. A fork that is a task runs after the
// code that follows it, so the less promising child is searched first,
// with a weaker bound: on one worker it looks at more nodes than the
// serial search.
var Natural *tsys.Task[Node, Found]

// Ordered keeps the search's order: when the runtime would inline, it
// searches both children in order as plain calls; when not, it forks the
// less promising child, which waits for a thief or for the join, and
// searches the promising one now. On one worker it looks at the nodes the
// serial search does; a thief takes the other child.
var Ordered *tsys.Task[Node, Found]

func init() {
	Natural = tsys.Register("knapsack.natural", natural)
	Ordered = tsys.Register("knapsack.ordered", ordered)
}

func natural(c *tsys.Ctx, n Node) Found {
	p := n.problem()
	f, take, skip, more, canTake := expand(p, n)
	if !more {
		return f
	}
	if !canTake {
		return f.merge(natural(c, skip))
	}
	t := Natural.Fork(c, take)
	s := natural(c, skip)
	return f.merge(t.Join(c)).merge(s)
}

func ordered(c *tsys.Ctx, n Node) Found {
	p := n.problem()
	f, take, skip, more, canTake := expand(p, n)
	if !more {
		return f
	}
	if !canTake {
		return f.merge(ordered(c, skip))
	}
	if c.AllowCCall() {
		f = f.merge(ordered(c, take))
		return f.merge(ordered(c, skip))
	}
	s := Ordered.Fork(c, skip)
	t := ordered(c, take)
	return f.merge(t).merge(s.Join(c))
}
