package fishing

import (
	"container/heap"
	"fmt"
	"testing"
	"time"

	"github.com/tsys-go/tsys/sched"
)

// A small discrete-event simulator of a cluster running fishing policies:
// no goroutine, no socket, simulated time only, so every run is exact and
// repeatable. Each node has workers with deques of tasks; the workload is a
// binary tree of 2^depth leaf tasks of unit cost, rooted on node 0. A task
// of height h > 0 costs nothing itself: it pushes its subtrees of heights
// h-1, ..., 0 (the oldest, largest, first) and runs one leaf, as a worker
// does when it walks down the left spine of a divide-and-conquer call. A
// lent task carries its whole subtree. Workers pop their own deque at the
// back and steal from the front; a Give takes the largest fronts.

type simConfig struct {
	nodes, workers int
	zones          int // nodes are split evenly among this many zones (0: one)
	depth          int // 2^depth leaves
	leaf           time.Duration
	delay          time.Duration // one-way message delay inside a zone
	crossDelay     time.Duration // ... between zones
	tick           time.Duration // Tick and load report period of each node
	wake           time.Duration // how long a parked worker takes to wake
	params         Params
}

type simResult struct {
	makespan, ideal time.Duration
	leaves          []int // leaves run by each node
	requests        int   // fishing requests sent
	transfers       int   // answers that carried tasks
	tasks           int   // tasks moved between nodes
	refusals        int   // answers that carried none
	deferrals       int   // requests held for a later answer
	crossRequests   int   // requests to another zone
}

func (r simResult) String() string {
	return fmt.Sprintf("makespan %v ideal %v (x%.3f), leaves per node %v, requests %d, transfers %d (tasks %d), refusals %d, deferrals %d, cross-zone requests %d",
		r.makespan, r.ideal, r.ratio(), r.leaves, r.requests, r.transfers, r.tasks, r.refusals, r.deferrals, r.crossRequests)
}

func (r simResult) ratio() float64 { return float64(r.makespan) / float64(r.ideal) }

type evKind uint8

const (
	evDone    evKind = iota // a worker finished a leaf
	evWake                  // a parked worker woke
	evRequest               // a fishing request reached node
	evReply                 // an answer reached node
	evLoad                  // a load report reached node
	evTick                  // node's timer
)

type event struct {
	at           time.Duration
	seq          int
	kind         evKind
	node, worker int
	from         int
	tasks        []int // heights, evReply
	ready        int   // evLoad
}

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

type simWorker struct {
	dq     []int
	busy   bool
	parked bool
	waking bool
}

type simNode struct {
	id     sched.NodeID
	zone   string
	pol    *Policy
	ws     []simWorker
	leaves int
}

type sim struct {
	t     *testing.T
	cfg   simConfig
	now   time.Duration
	seq   int
	q     eventHeap
	nodes []*simNode
	byID  map[sched.NodeID]int
	left  int
	res   simResult
}

func newSim(t *testing.T, cfg simConfig) *sim {
	s := &sim{t: t, cfg: cfg, byID: map[sched.NodeID]int{}, left: 1 << cfg.depth}
	zones := max(cfg.zones, 1)
	for i := range cfg.nodes {
		n := &simNode{
			id:   sched.NodeID(fmt.Sprintf("n%d", i)),
			zone: fmt.Sprintf("z%d", i*zones/cfg.nodes),
			ws:   make([]simWorker, cfg.workers),
		}
		n.pol = New(n.id, n.zone, cfg.params)
		s.byID[n.id] = i
		s.nodes = append(s.nodes, n)
	}
	for _, n := range s.nodes {
		for _, m := range s.nodes {
			if as := n.pol.Membership(epoch, sched.MemberEvent{Node: m.id, Zone: m.zone, Joined: true}); as != nil {
				t.Fatalf("%s: join of %s: %v", n.id, m.id, as)
			}
		}
	}
	return s
}

func (s *sim) post(e event) {
	e.seq = s.seq
	s.seq++
	heap.Push(&s.q, e)
}

func (s *sim) delay(a, b int) time.Duration {
	if s.nodes[a].zone != s.nodes[b].zone {
		return s.cfg.crossDelay
	}
	return s.cfg.delay
}

func (s *sim) run() simResult {
	cfg := s.cfg
	s.res.ideal = time.Duration(1<<cfg.depth) * cfg.leaf / time.Duration(cfg.nodes*cfg.workers)
	s.res.leaves = make([]int, cfg.nodes)
	s.start(0, 0, cfg.depth)
	for i := range s.nodes {
		for w := range s.nodes[i].ws {
			if !s.nodes[i].ws[w].busy {
				s.look(i, w)
			}
		}
		s.post(event{at: cfg.tick * time.Duration(i+1) / time.Duration(cfg.nodes), kind: evTick, node: i})
	}
	limit := 50 * s.res.ideal
	for s.left > 0 {
		if len(s.q) == 0 || s.now > limit {
			s.t.Fatalf("stuck at %v with %d leaves left", s.now, s.left)
		}
		e := heap.Pop(&s.q).(event)
		s.now = e.at
		s.handle(e)
	}
	s.res.makespan = s.now
	for i, n := range s.nodes {
		s.res.leaves[i] = n.leaves
	}
	return s.res
}

func (s *sim) handle(e event) {
	n := s.nodes[e.node]
	switch e.kind {
	case evDone:
		n.leaves++
		s.left--
		n.ws[e.worker].busy = false
		s.look(e.node, e.worker)
	case evWake:
		w := &n.ws[e.worker]
		w.waking = false
		if w.parked {
			w.parked = false
			s.look(e.node, e.worker)
		}
	case evRequest:
		s.request(e.node, e.from)
	case evReply:
		s.reply(e.node, e.from, e.tasks)
	case evLoad:
		s.act(e.node, n.pol.LoadReport(s.at(), s.nodes[e.from].id, sched.Load{Ready: e.ready, Workers: s.cfg.workers}))
	case evTick:
		ready, idle := s.load(e.node)
		s.act(e.node, n.pol.Tick(s.at(), sched.Load{Ready: ready, Workers: s.cfg.workers, Idle: idle}))
		for m := range s.nodes {
			if m != e.node {
				s.post(event{at: s.now + s.delay(e.node, m), kind: evLoad, node: m, from: e.node, ready: ready})
			}
		}
		s.post(event{at: s.now + s.cfg.tick, kind: evTick, node: e.node})
	}
}

// at is the simulated time as the policies see it.
func (s *sim) at() time.Time { return epoch.Add(s.now) }

func (s *sim) load(i int) (ready, idle int) {
	for _, w := range s.nodes[i].ws {
		ready += len(w.dq)
		if w.parked {
			idle++
		}
	}
	return
}

// start runs a task of height h on worker w of node i.
func (s *sim) start(i, w, h int) {
	n := s.nodes[i]
	n.ws[w].busy = true
	for c := h - 1; c >= 0; c-- {
		n.ws[w].dq = append(n.ws[w].dq, c)
	}
	if h > 0 {
		s.wakeOne(i)
		if n.pol.Advice().Deferred > 0 {
			ready, _ := s.load(i)
			s.act(i, n.pol.Pushed(s.at(), ready))
		}
	}
	s.post(event{at: s.now + s.cfg.leaf, kind: evDone, node: i, worker: w})
}

func (s *sim) wakeOne(i int) {
	for w := range s.nodes[i].ws {
		if x := &s.nodes[i].ws[w]; x.parked && !x.waking {
			x.waking = true
			s.post(event{at: s.now + s.cfg.wake, kind: evWake, node: i, worker: w})
			return
		}
	}
}

// look is the idle loop of worker w of node i.
func (s *sim) look(i, w int) {
	n := s.nodes[i]
	x := &n.ws[w]
	if k := len(x.dq); k > 0 {
		h := x.dq[k-1]
		x.dq = x.dq[:k-1]
		s.start(i, w, h)
		return
	}
	// The pool's local stealing: the oldest task of any other worker.
	for v := range n.ws {
		if y := &n.ws[v]; v != w && len(y.dq) > 0 {
			h := y.dq[0]
			y.dq = y.dq[1:]
			s.start(i, w, h)
			return
		}
	}
	x.parked = true
	s.act(i, n.pol.Hungry(s.at()))
}

func (s *sim) act(i int, as []sched.Action) {
	for _, a := range as {
		switch a.Kind {
		case sched.Fish:
			s.fish(i, a)
		case sched.Give, sched.Refuse:
			s.answer(i, s.byID[a.Node], a)
		default:
			s.t.Fatalf("%s: unexpected action %+v", s.nodes[i].id, a)
		}
	}
}

func (s *sim) fish(i int, a sched.Action) {
	to, ok := s.byID[a.Node]
	if !ok || to == i {
		s.t.Fatalf("%s fishes at %q", s.nodes[i].id, a.Node)
	}
	s.res.requests++
	if s.nodes[i].zone != s.nodes[to].zone {
		s.res.crossRequests++
	}
	if pol := s.nodes[i].pol; pol.p.Victim == Zone && pol.cross > 1 {
		s.t.Fatalf("%s: %d requests to other zones in flight", s.nodes[i].id, pol.cross)
	}
	s.post(event{at: s.now + s.delay(i, to), kind: evRequest, node: to, from: i})
}

// request hands node from's request to node i's policy.
func (s *sim) request(i, from int) {
	n := s.nodes[i]
	ready, _ := s.load(i)
	a := n.pol.StealRequest(s.at(), s.nodes[from].id, s.cfg.params.TasksPerAnswer, ready)
	if a.Kind == sched.Defer {
		s.res.deferrals++
		return // answered by a later Give or Refuse
	}
	s.answer(i, from, a)
}

// answer carries out node i's Give or Refuse to node from.
func (s *sim) answer(i, from int, a sched.Action) {
	n := s.nodes[i]
	ready, _ := s.load(i)
	var tasks []int
	if a.Kind == sched.Give {
		if a.Node != s.nodes[from].id || a.Count < 1 || a.Count > ready {
			s.t.Fatalf("%s: Give %+v with %d ready", n.id, a, ready)
		}
		for range a.Count {
			best := -1
			for w := range n.ws {
				if dq := n.ws[w].dq; len(dq) > 0 && (best < 0 || dq[0] > n.ws[best].dq[0]) {
					best = w
				}
			}
			tasks = append(tasks, n.ws[best].dq[0])
			n.ws[best].dq = n.ws[best].dq[1:]
		}
		s.res.transfers++
		s.res.tasks += len(tasks)
	} else {
		s.res.refusals++
	}
	s.post(event{at: s.now + s.delay(i, from), kind: evReply, node: from, from: i, tasks: tasks})
}

// reply delivers node from's answer to node i.
func (s *sim) reply(i, from int, tasks []int) {
	n := s.nodes[i]
	as := n.pol.StealReply(s.at(), s.nodes[from].id, len(tasks))
	if len(tasks) > 0 {
		// The tasks go to a parked worker, which starts at once.
		target := -1
		for w := range n.ws {
			if n.ws[w].parked && !n.ws[w].waking {
				target = w
				break
			}
		}
		if target < 0 {
			n.ws[0].dq = append(n.ws[0].dq, tasks...)
			s.wakeOne(i)
		} else {
			x := &n.ws[target]
			x.dq = append(x.dq, tasks...)
			x.parked = false
			s.look(i, target)
		}
	}
	s.act(i, as)
}

func baseConfig(nodes int, v Victim) simConfig {
	p := DefaultParams()
	p.Victim = v
	return simConfig{
		nodes:      nodes,
		workers:    4,
		depth:      12,
		leaf:       time.Millisecond,
		delay:      100 * time.Microsecond,
		crossDelay: 100 * time.Microsecond,
		tick:       time.Millisecond,
		wake:       5 * time.Microsecond,
		params:     p,
	}
}

func check(t *testing.T, cfg simConfig, r simResult) {
	t.Helper()
	total := 0
	for i, l := range r.leaves {
		total += l
		if l == 0 {
			t.Errorf("node %d ran no work", i)
		}
	}
	if total != 1<<cfg.depth {
		t.Errorf("%d leaves run, want %d", total, 1<<cfg.depth)
	}
}

func TestSimTwoNodes(t *testing.T) {
	for _, v := range []Victim{Random, Load, Zone} {
		cfg := baseConfig(2, v)
		r := newSim(t, cfg).run()
		t.Logf("2 nodes, %s: %v", v, r)
		check(t, cfg, r)
		if r.transfers > 8 {
			t.Errorf("%s: %d transfers for 2 nodes", v, r.transfers)
		}
		if r.ratio() > 1.3 {
			t.Errorf("%s: makespan %.3f x ideal", v, r.ratio())
		}
	}
}

func TestSimFourNodes(t *testing.T) {
	for _, d := range []time.Duration{100 * time.Microsecond, time.Millisecond} {
		for _, v := range []Victim{Random, Load, Zone} {
			cfg := baseConfig(4, v)
			cfg.delay, cfg.crossDelay = d, d
			r := newSim(t, cfg).run()
			t.Logf("4 nodes, delay %v, %s: %v", d, v, r)
			check(t, cfg, r)
			if r.ratio() > 1.3 {
				t.Errorf("%s: makespan %.3f x ideal", v, r.ratio())
			}
		}
	}
}

// TestSimZones: two zones of two nodes, 20 times slower between zones.
// Zone victims keep at most one wide-area request in flight per node.
func TestSimZones(t *testing.T) {
	for _, v := range []Victim{Random, Zone} {
		cfg := baseConfig(4, v)
		cfg.zones = 2
		cfg.crossDelay = 2 * time.Millisecond
		r := newSim(t, cfg).run()
		t.Logf("2x2 nodes, %s: %v", v, r)
		check(t, cfg, r)
		if r.ratio() > 1.3 {
			t.Errorf("%s: makespan %.3f x ideal", v, r.ratio())
		}
	}
}

// TestSimDeterministic: the simulator and the policies are repeatable.
func TestSimDeterministic(t *testing.T) {
	cfg := baseConfig(4, Random)
	a, b := newSim(t, cfg).run(), newSim(t, cfg).run()
	if a.String() != b.String() {
		t.Fatalf("two runs differ:\n%v\n%v", a, b)
	}
}
