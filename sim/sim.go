package sim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/returns"
	"github.com/tsys-go/tsys/internal/schedspec"
	"github.com/tsys-go/tsys/internal/xorshift"
)

// Config is one simulation: a workload on a model of a cluster under a
// scheduler, with a seed for the workers' choice of victims.
type Config struct {
	Model    Model
	Workload Workload
	// Sched makes each node's policy (schedspec.Parse); nil runs every node
	// without one (local: only node 0 works).
	Sched schedspec.Factory
	Seed  uint64
	// Stall ends a run that completes no task for this long of virtual
	// time while nothing is on its way (a policy that never asks again);
	// 0 means 10 s.
	Stall time.Duration
	// perMessage posts a status broadcast as one event per receiver, the
	// model's definition, which broadcast stands in for; tests compare
	// the two.
	perMessage bool
}

// epoch is virtual time 0 as the policies see it.
var epoch = time.Unix(1_000_000_000, 0)

// sim is the state of one run. Everything happens on the caller's
// goroutine, in the order of the event queue.
type sim struct {
	cfg   Config
	m     Model
	w     Workload
	calls bool // the workload calls each task's last child
	now   time.Duration
	seq   uint64
	queue eventQueue
	nodes []*node
	byID  map[clusterpolicy.NodeID]int
	// zoneSize is how many nodes each zone holds.
	zoneSize []int
	// groups are the task groups: the root's, and one per lent task.
	groups groupStore
	done   bool
	// work and span are T_1 and T_inf, summed and maxed as tasks run;
	// progress is when a task last finished.
	work, span time.Duration
	progress   time.Duration
	tasks      int64
	events     int64
	scratch    []Task
}

// worker is one worker of a node: its deque, whether it runs a task, and
// the frames of the tasks whose children it is still spawning.
type worker struct {
	dq     []Task // the owner pops at the end, thieves take from head
	head   int
	frames []frame
	busy   bool
	parked bool
	waking bool
	since  time.Duration // when it last became busy or idle
	busyT  time.Duration
	idleT  time.Duration
	run    Task
}

// frame is a task whose own work is done and whose children the worker
// spawns one at a time, as the task's code does: next is the first not yet
// spawned. A child run inline (a C-call) puts its own frame above, and the
// worker comes back to this one when that child and everything it called
// are done; the tasks they pushed may still wait in the deque, as after
// a Call returns in the runtime.
type frame struct {
	kids []Task
	next int
}

func (w *worker) len() int { return len(w.dq) - w.head }

// pushFrame starts a frame for children, reusing the slice of a frame
// that ended at this depth before.
func (w *worker) pushFrame(children []Task) *frame {
	if len(w.frames) < cap(w.frames) {
		w.frames = w.frames[:len(w.frames)+1]
	} else {
		w.frames = append(w.frames, frame{})
	}
	f := &w.frames[len(w.frames)-1]
	f.kids, f.next = append(f.kids[:0], children...), 0
	return f
}

func (w *worker) pop() (Task, bool) {
	if w.len() == 0 {
		return Task{}, false
	}
	t := w.dq[len(w.dq)-1]
	w.dq = w.dq[:len(w.dq)-1]
	if w.len() == 0 {
		w.dq, w.head = w.dq[:0], 0
	}
	return t, true
}

func (w *worker) steal() (Task, bool) {
	if w.len() == 0 {
		return Task{}, false
	}
	t := w.dq[w.head]
	w.head++
	if w.len() == 0 {
		w.dq, w.head = w.dq[:0], 0
	}
	return t, true
}

// node is one simulated node: workers, borrowed tasks waiting for one, its
// policy and its counters.
type node struct {
	i        int
	id       clusterpolicy.NodeID
	pol      clusterpolicy.Policy
	advice   clusterpolicy.Advice
	ws       []worker
	injected []Task
	dead     bool
	// member: the other nodes know it (false until a late join); draining:
	// it leaves gracefully once idle; gone: it has left.
	member, draining, gone bool
	// serving is set once the job's start reached the node (jobStart);
	// before that it works on nothing and lends nothing.
	serving bool
	// debt is CPU the node owes to messages it sent and received
	// (Model.Overhead each): the next task it starts takes that much
	// longer.
	debt   time.Duration
	parked int
	rng    xorshift.State
	// what the last tick window saw, for the load a tick reports
	windowBusy, windowUseful time.Duration
	lastTick                 time.Duration
	measured                 clusterpolicy.Load
	costSum                  time.Duration
	costN                    int64
	counts                   NodeResult
	acct                     account // where its time goes (account.go)
	// returns holds the results of its borrowed groups, by lender, until
	// they go home together (package returns); returnAt is when its
	// evReturn is posted for (0: none).
	returns  *returns.Batcher[int32]
	returnAt time.Duration
}

// ready is how many tasks are ready on the node: on its workers' deques
// and in its queue of borrowed tasks.
func (n *node) ready() int { return len(n.injected) + n.lendable() }

// lendable is how many of them it could give: those on its workers'
// deques, as sched.Port.Lendable counts them (a borrowed task is not lent
// on before a worker runs it and spawns).
func (n *node) lendable() int {
	r := 0
	for i := range n.ws {
		r += n.ws[i].len()
	}
	return r
}

// group is a lent task's subtree, or the root's: the tasks of it not yet
// done, and where its result goes when none are left.
type group struct {
	pending int64
	parent  int32 // the lender's group of the lent task; -1 for the root's
	lender  int
	home    int
	task    Task          // the lent task, to run again if its home dies
	arrived time.Duration // when the lent task reached its home
	lost    bool          // the lender runs the task itself: its home died, or handed it back unstarted
}

// Run simulates cfg and returns what happened.
func Run(cfg Config) (*Result, error) {
	if err := cfg.Model.Check(); err != nil {
		return nil, err
	}
	if cfg.Workload == nil {
		return nil, fmt.Errorf("no workload")
	}
	if cfg.Stall <= 0 {
		cfg.Stall = 10 * time.Second
	}
	began := time.Now()
	s := &sim{cfg: cfg, m: cfg.Model, w: cfg.Workload, calls: cfg.Workload.CallsLast(), byID: map[clusterpolicy.NodeID]int{}}
	s.start()
	for !s.done {
		if len(s.queue) == 0 {
			return nil, fmt.Errorf("the simulation stalled at %v: no event left and the job not done (%s)", s.now, s.state())
		}
		e := s.queue.pop()
		s.now = e.at
		if e.kind != evStatus {
			s.events++ // a status event counts its deliveries
		}
		s.handle(e)
		if s.stalled() {
			return nil, fmt.Errorf("no task finished for %v of virtual time at %v (%s): the scheduler stopped moving work", cfg.Stall, s.now, s.state())
		}
	}
	return s.result(time.Since(began)), nil
}

// stalled reports whether no task has finished for longer than the
// configured Stall.
func (s *sim) stalled() bool { return s.now-s.progress > s.cfg.Stall }

// state describes the run for an error.
func (s *sim) state() string {
	busy, parked, ready := 0, 0, 0
	for _, n := range s.nodes {
		parked += n.parked
		ready += n.ready()
		for i := range n.ws {
			if n.ws[i].busy {
				busy++
			}
		}
	}
	return fmt.Sprintf("%d tasks done, %d workers busy, %d parked, %d tasks ready", s.tasks, busy, parked, ready)
}

// start makes the nodes, tells every policy of every node, and puts the
// root task on node 0.
func (s *sim) start() {
	m := s.m
	s.zoneSize = make([]int, max(m.Zones, 1))
	for i := range m.Nodes {
		s.zoneSize[m.zone(i)]++
		n := &node{i: i, id: clusterpolicy.NodeID(fmt.Sprintf("n%d", i)), ws: make([]worker, m.Workers),
			rng:     xorshift.Seed(s.cfg.Seed*0x9e3779b97f4a7c15 + uint64(i) + 1),
			returns: returns.New[int32](returns.Params{Hold: m.ResultHold})}
		if s.cfg.Sched != nil {
			n.pol = s.cfg.Sched(n.id, fmt.Sprintf("z%d", m.zone(i)))
		}
		_, late := m.Joins[i]
		n.member = !late
		s.byID[n.id] = i
		s.nodes = append(s.nodes, n)
	}
	for _, n := range s.nodes {
		if n.pol == nil || !n.member {
			continue
		}
		for _, o := range s.nodes {
			if o.member {
				s.act(n, n.pol.Membership(s.at(), clusterpolicy.MemberEvent{Node: o.id, Zone: s.zoneOf(o), Joined: true}))
			}
		}
		n.advice = n.pol.Advice()
	}
	// In the order of the nodes, not of a map: events at one time are
	// handled in the order they were posted.
	for _, i := range slices.Sorted(maps.Keys(m.Joins)) {
		s.post(&event{at: m.Joins[i], kind: evJoin, node: i})
	}
	for _, i := range slices.Sorted(maps.Keys(m.Drains)) {
		s.post(&event{at: m.Drains[i], kind: evDrain, node: i})
	}
	s.groups.add(group{pending: 1, parent: -1})
	if m.Fail > 0 {
		s.post(&event{at: m.FailAt, kind: evFail, node: m.Fail})
		s.post(&event{at: m.FailAt + m.Detect, kind: evDetect, node: m.Fail})
	}
	for _, n := range s.nodes {
		for w := range n.ws {
			n.ws[w].parked = true
			n.parked++
		}
		n.acct.waiting = len(n.ws)
		if n.member {
			s.post(&event{at: m.startAt(n.i), kind: evStart, node: n.i})
		}
	}
}

func (s *sim) zoneOf(n *node) string { return fmt.Sprintf("z%d", s.m.zone(n.i)) }

// join: node n joins the cluster. Every member's policy hears it, it hears
// them, and the root sends it the job's start.
func (s *sim) join(n *node) {
	n.member = true
	for _, o := range s.nodes {
		if o == n || !o.member || o.dead || o.gone {
			continue
		}
		if o.pol != nil {
			s.act(o, o.pol.Membership(s.at(), clusterpolicy.MemberEvent{Node: n.id, Zone: s.zoneOf(n), Joined: true}))
		}
		if n.pol != nil {
			s.act(n, n.pol.Membership(s.at(), clusterpolicy.MemberEvent{Node: o.id, Zone: s.zoneOf(o), Joined: true}))
		}
	}
	root := s.nodes[0]
	root.debt += s.m.Overhead
	s.post(&event{at: s.now + s.m.delay(0, n.i, s.m.MessageBytes), kind: evStart, node: n.i})
}

// drain: node n starts to leave. It hands back the borrowed tasks it has
// not started, and leaves once it is idle.
func (s *sim) drain(n *node) {
	n.draining = true
	// It tells the others it is leaving: their policies forget it a
	// Latency later (the runtime's leaving message); it stays a member,
	// with results to send, until it leaves.
	s.post(&event{at: s.now + s.m.delay(n.i, 0, s.m.MessageBytes), kind: evForget, node: n.i})
	waiting := n.injected
	n.injected = nil
	s.handBack(n, waiting)
	s.maybeLeave(n)
}

// handBack sends each of tasks, borrowed by the leaving node n and not
// started, back to its lender; a task of n's own (one handed back to it,
// or run again after a death) stays, and n runs it.
func (s *sim) handBack(n *node, tasks []Task) {
	kept := 0
	for _, t := range tasks {
		if !t.lent || s.groups.at(t.group).lost {
			n.injected = append(n.injected, t)
			kept++
			continue
		}
		n.counts.Returned++
		lender := s.groups.at(t.group).lender
		n.returns.Dropped(s.nodes[lender].id, 1)
		s.send(n, lender, &message{kind: msgHandBack, tasks: []Task{t}}, s.m.TaskBytes)
	}
	if kept > 0 {
		s.arrived(n, kept)
	}
}

// maybeLeave: a draining node leaves once it runs nothing, holds nothing,
// and every task it borrowed or lent has its result home.
func (s *sim) maybeLeave(n *node) {
	if !n.draining || n.gone || n.parked != len(n.ws) || len(n.injected) > 0 || n.returns.Held() > 0 {
		return
	}
	for i := range n.ws {
		if n.ws[i].len() > 0 || n.ws[i].waking {
			return
		}
	}
	for g := range s.groups.len() {
		gr := s.groups.at(int32(g))
		if gr.parent >= 0 && gr.pending > 0 && !gr.lost && (gr.home == n.i || gr.lender == n.i) {
			return
		}
	}
	n.gone = true
}

// bounce: a message reached node n after it left, before its sender heard
// so. As in the runtime, whose send to a departed node fails, lent tasks
// go back to their lender, which runs them, and a request is answered
// with nothing.
func (s *sim) bounce(n *node, msg *message) {
	from := s.nodes[msg.from]
	switch msg.kind {
	case msgReply:
		s.unlend(from, msg.tasks)
	case msgRequest:
		from.acct.answered(s.now, n.i)
		if from.pol != nil && !from.dead && !from.gone {
			s.act(from, from.pol.StealReply(s.at(), n.id, 0))
		}
	}
}

// left: the others' policies hear that n is leaving: they give it no more
// work.
func (s *sim) left(n *node) {
	for _, o := range s.nodes {
		if o != n && o.member && !o.dead && !o.gone && o.pol != nil {
			s.act(o, o.pol.Membership(s.at(), clusterpolicy.MemberEvent{Node: n.id, Leaving: true}))
		}
	}
}

// serve starts node n on the job: the root task on node 0, the workers
// looking for work, the policy's ticks (staggered, as separate machines'
// timers are).
func (s *sim) serve(n *node) {
	n.serving = true
	if n.pol != nil {
		s.act(n, n.pol.JobStarted(s.at()))
	}
	if n.i == 0 {
		n.ws[0].dq = append(n.ws[0].dq, s.w.Root())
	}
	for w := range n.ws {
		s.unpark(n, w, 0)
	}
	if n.pol != nil {
		s.post(&event{at: s.now + s.m.Tick*time.Duration(n.i+1)/time.Duration(s.m.Nodes), kind: evTick, node: n.i})
	}
}

// at is the policies' clock.
func (s *sim) at() time.Time { return epoch.Add(s.now) }

func (s *sim) post(e *event) {
	e.seq = s.seq
	s.seq++
	s.queue.push(e)
}

func (s *sim) handle(e *event) {
	if e.kind == evStatus {
		s.status(e.msg)
		return
	}
	n := s.nodes[e.node]
	if e.kind == evMessage {
		s.receive(n, e.msg)
		return
	}
	if n.dead && e.kind != evDetect || n.gone && e.kind != evForget {
		return // a dead or departed node does nothing, and hears nothing
	}
	switch e.kind {
	case evStart:
		s.serve(n)
	case evFail:
		s.fail(n)
	case evDetect:
		s.detect(n)
	case evDone:
		s.finish(n, e.worker)
	case evWake:
		w := &n.ws[e.worker]
		w.waking = false
		s.look(n, e.worker)
	case evTick:
		s.tick(n)
	case evJoin:
		s.join(n)
	case evDrain:
		s.drain(n)
	case evForget:
		s.left(n)
	case evReturn:
		s.due(n)
	}
}

// look finds the next task for worker w: its own deque's newest, another
// worker's oldest, or a borrowed one; with none, the worker parks and the
// node is hungry.
func (s *sim) look(n *node, wi int) {
	w := &n.ws[wi]
	t, ok := w.pop()
	if !ok {
		for range 2 * (len(n.ws) - 1) {
			v := n.rng.Below(len(n.ws) - 1)
			if v >= wi {
				v++
			}
			if t, ok = n.ws[v].steal(); ok {
				n.counts.LocalSteals++
				break
			}
		}
	}
	if !ok && len(n.injected) > 0 {
		t, ok = n.injected[0], true
		n.injected = n.injected[1:]
		if len(n.injected) < n.advice.Reserve {
			s.hungry(n)
		}
	}
	if !ok {
		s.park(n, wi)
		if n.returns.Held() > 0 {
			s.sendResults(n, n.returns.Idle(s.at()))
		}
		s.hungry(n)
		s.maybeLeave(n)
		return
	}
	s.begin(n, wi, t)
}

// begin runs task t on worker wi for its cost at the node's speed now.
func (s *sim) begin(n *node, wi int, t Task) {
	w := &n.ws[wi]
	if w.parked {
		w.parked = false
		n.parked--
	}
	if !w.busy {
		w.idleT += s.now - w.since
		w.since = s.now
		n.acct.working(s.now, n.debt)
	}
	w.busy, w.run = true, t
	took := time.Duration(float64(s.cost(&t))/s.m.speed(n.i, s.now)) + n.debt
	n.debt = 0
	s.post(&event{at: s.now + took, kind: evDone, node: n.i, worker: wi})
}

// cost is the CPU task t takes: its own cost, and Model.Spawn if it was
// spawned as a task.
func (s *sim) cost(t *Task) time.Duration {
	c := s.w.Cost(t)
	if t.spawned {
		c += s.m.Spawn
	}
	return c
}

// finish ends worker wi's task: its children are ready on the worker's
// deque, the oldest first, and the worker looks for its next task.
func (s *sim) finish(n *node, wi int) {
	w := &n.ws[wi]
	t := w.run
	own, cost := s.w.Cost(&t), s.cost(&t)
	took := s.now - w.since
	w.busyT += took
	w.since = s.now
	w.busy = false
	n.acct.free(s.now)
	n.windowBusy += took
	n.windowUseful += cost
	n.costSum += cost
	n.costN++
	n.counts.Tasks++
	s.tasks++
	s.work += own
	s.progress = s.now
	end := t.span + own
	s.span = max(s.span, end)
	s.scratch = s.w.Children(&t, s.scratch[:0])
	for i := range s.scratch {
		s.scratch[i].group, s.scratch[i].span = t.group, end
	}
	gr := s.groups.at(t.group)
	gr.pending += int64(len(s.scratch)) - 1
	if gr.pending == 0 {
		s.groupDone(t.group)
		if s.done {
			return
		}
	}
	if len(s.scratch) > 0 {
		w.pushFrame(s.scratch)
	}
	s.spawn(n, wi)
}

// spawn goes on with worker wi's innermost frame: each child becomes a
// ready task on the worker's deque, or runs at once as a call, and the
// frame waits for its subtree. A child is a call when the inlining policy
// says the deque holds enough already (K, plus the policy's Expose while
// other nodes want work), and the last child is one when the workload's
// code calls it. With no frame left the worker looks for its next task.
func (s *sim) spawn(n *node, wi int) {
	w := &n.ws[wi]
	for len(w.frames) > 0 {
		f := &w.frames[len(w.frames)-1]
		if f.next == len(f.kids) {
			w.frames = w.frames[:len(w.frames)-1]
			continue
		}
		c := f.kids[f.next]
		f.next++
		if s.calls && f.next == len(f.kids) || s.m.Inline.AllowCCallKeeping(w.len(), n.advice.Expose) {
			n.counts.Inlined++
			s.begin(n, wi, c)
			return
		}
		c.spawned = true
		w.dq = append(w.dq, c)
		s.pushed(n, 1)
	}
	s.look(n, wi)
}

// pushed: a worker of node n pushed k tasks on its deque: parked workers
// wake for them, and a policy holding requests hears of it.
func (s *sim) pushed(n *node, k int) {
	s.arrived(n, k)
	if n.pol != nil && n.advice.Deferred > 0 {
		s.act(n, n.pol.Pushed(s.at(), n.lendable()))
	}
}

// arrived: k tasks came to node n's queue of borrowed tasks (or back to
// it): parked workers wake for them. The policy hears nothing, as in the
// runtime, where only a worker's push signals Pushed: a borrowed task is
// not lent on before a worker runs it and spawns.
func (s *sim) arrived(n *node, k int) {
	for wi := range n.ws {
		if k == 0 || n.parked == 0 {
			break
		}
		if n.ws[wi].parked && !n.ws[wi].waking {
			s.unpark(n, wi, s.m.Wake)
			k--
		}
	}
}

// park makes worker wi idle.
func (s *sim) park(n *node, wi int) {
	w := &n.ws[wi]
	if !w.parked {
		w.parked = true
		n.parked++
	}
}

// unpark wakes a parked worker after delay.
func (s *sim) unpark(n *node, wi int, delay time.Duration) {
	w := &n.ws[wi]
	w.waking = true
	s.post(&event{at: s.now + delay, kind: evWake, node: n.i, worker: wi})
}

// hungry tells the policy a worker found nothing, when its advice says it
// would listen.
func (s *sim) hungry(n *node) {
	if n.pol == nil || n.draining || s.at().Before(n.advice.HungryAfter) {
		return
	}
	s.act(n, n.pol.Hungry(s.at()))
}

// tick gives the policy the time and the node's load over the last
// window, and schedules the next tick.
func (s *sim) tick(n *node) {
	window := s.now - n.lastTick
	if window > 0 {
		n.measured.Busy = float64(n.windowBusy) / float64(window)
		n.measured.Rate = float64(n.windowUseful) / float64(window)
		// A task still running counts from its start only when it ends:
		// over several windows the two agree.
	}
	n.windowBusy, n.windowUseful, n.lastTick = 0, 0, s.now
	if n.costN > 0 {
		n.measured.TaskTime = n.costSum / time.Duration(n.costN)
	}
	s.act(n, n.pol.Tick(s.at(), s.load(n)))
	s.post(&event{at: s.now + s.m.Tick, kind: evTick, node: n.i})
}

// load is the node's load now: counts as they are, rates as the last tick
// measured them.
func (s *sim) load(n *node) clusterpolicy.Load {
	l := n.measured
	l.Ready, l.Workers, l.Idle = n.ready(), len(n.ws), n.parked
	return l
}

// act carries out a policy's actions, then reads its advice.
func (s *sim) act(n *node, as []clusterpolicy.Action) {
	for _, a := range as {
		switch a.Kind {
		case clusterpolicy.Fish:
			if n.draining {
				continue // a leaving node asks for nothing
			}
			n.counts.Requests++
			n.acct.ask(s.now, s.byID[a.Node])
			s.send(n, s.byID[a.Node], &message{kind: msgRequest, want: a.Count}, 0)
		case clusterpolicy.Lifeline:
			if n.draining {
				continue
			}
			// Not a request in flight for the account: the node waits for
			// work to be pushed, for as long as it takes.
			n.counts.Lifelines++
			s.send(n, s.byID[a.Node], &message{kind: msgRequest, want: a.Count, lifeline: true}, 0)
		case clusterpolicy.Give:
			s.give(n, s.byID[a.Node], a.Count)
		case clusterpolicy.Refuse:
			s.send(n, s.byID[a.Node], &message{kind: msgReply}, 0)
		case clusterpolicy.Defer:
		case clusterpolicy.Report:
			s.broadcast(n)
		}
	}
	if n.pol != nil {
		n.advice = n.pol.Advice()
	}
}

// give lends up to count of node n's oldest ready tasks to node to, from
// the workers with the longest deques, as sched.Port.Lend does; each
// becomes a group of its own, whose result comes back to n.
func (s *sim) give(n *node, to, count int) {
	var tasks []Task
	for len(tasks) < count {
		best := -1
		for wi := range n.ws {
			if l := n.ws[wi].len(); l > 0 && (best < 0 || l > n.ws[best].len()) {
				best = wi
			}
		}
		if best < 0 {
			break
		}
		t, _ := n.ws[best].steal()
		t.group = s.groups.add(group{pending: 1, parent: t.group, lender: n.i, home: to, task: t})
		t.lent = true
		tasks = append(tasks, t)
	}
	n.counts.Lent += int64(len(tasks))
	s.send(n, to, &message{kind: msgReply, tasks: tasks}, len(tasks)*s.m.TaskBytes)
}

// groupDone: every task of group g is done. The root's ends the job; a
// lent one's result goes back to its lender, with others to the same
// lender when its node's Batcher says.
func (s *sim) groupDone(g int32) {
	gr := s.groups.at(g)
	if gr.parent < 0 {
		s.done = true
		return
	}
	home := s.nodes[gr.home]
	s.sendResults(home, home.returns.Done(s.at(), s.nodes[gr.lender].id, g, epoch.Add(gr.arrived)))
}

// sendResults sends node n's batches of results, one message each, and
// posts its evReturn for the results still held.
func (s *sim) sendResults(n *node, bs []returns.Batch[int32]) {
	for _, b := range bs {
		s.send(n, s.byID[b.Lender], &message{kind: msgResult, groups: b.Results}, len(b.Results)*s.m.ResultBytes)
	}
	next, ok := n.returns.Next()
	if !ok {
		return
	}
	at := max(next.Sub(epoch), s.now)
	if n.returnAt == 0 || at < n.returnAt {
		n.returnAt = at
		s.post(&event{at: at, kind: evReturn, node: n.i})
	}
}

// due: node n's evReturn; it sends the results held long enough. An
// event superseded by an earlier one finds nothing due, or is the one.
func (s *sim) due(n *node) {
	if s.now >= n.returnAt {
		n.returnAt = 0
	}
	s.sendResults(n, n.returns.Due(s.at()))
}

// send puts a message on its way from n to node to.
func (s *sim) send(n *node, to int, msg *message, payload int) {
	msg.from = n.i
	size := s.m.MessageBytes + payload
	n.debt += s.m.Overhead
	n.counts.Messages++
	if s.m.zone(n.i) != s.m.zone(to) {
		n.counts.CrossZone++
	}
	n.counts.Bytes += int64(size)
	switch {
	case msg.kind == msgReply && len(msg.tasks) == 0:
		n.counts.Refusals++
	case msg.kind == msgResult:
		n.counts.Results++
	}
	s.post(&event{at: s.now + s.m.delay(n.i, to, size), kind: evMessage, node: to, msg: msg})
}

// broadcast sends node n's load to every other node, each a status
// message that costs n Overhead and counts as the per-message model
// counts it. A message's delay depends only on whether its receiver is in
// n's zone, so the receivers fall into at most two arrival times; one
// evStatus event for each delivers the report to its receivers in node
// order when it is popped. That is the order in which the per-message
// events would be popped: they are posted one after another, so their
// sequence numbers are consecutive and no other event of the same time
// can come between them; the others of that time come all before or all
// after them, as they come before or after the one event (sim/doc.go).
func (s *sim) broadcast(n *node) {
	l := s.load(n)
	if s.cfg.perMessage {
		for _, o := range s.nodes {
			if o != n {
				n.counts.StatusMessages++
				s.send(n, o.i, &message{kind: msgLoad, load: l}, 0)
			}
		}
		return
	}
	others := len(s.nodes) - 1
	local := s.zoneSize[s.m.zone(n.i)] - 1
	cross := others - local
	size := s.m.MessageBytes
	n.counts.StatusMessages += int64(others)
	n.counts.Messages += int64(others)
	n.counts.CrossZone += int64(cross)
	n.counts.Bytes += int64(others) * int64(size)
	n.debt += time.Duration(others) * s.m.Overhead
	in, out := s.m.linkDelay(false, size), s.m.linkDelay(true, size)
	post := func(at time.Duration, r reach) {
		s.post(&event{at: s.now + at, kind: evStatus, node: n.i, msg: &message{kind: msgLoad, from: n.i, load: l, reach: r}})
	}
	switch {
	case others == 0:
	case cross == 0:
		post(in, reachAll)
	case local == 0:
		post(out, reachAll)
	case in == out:
		post(in, reachAll) // one time: the zones interleave in node order
	default:
		post(in, reachZone)
		post(out, reachOthers)
	}
}

// status delivers a status broadcast to the receivers it reaches now, in
// node order, each counted as the event it is in the per-message model.
// It stops where Run would have stopped between those events.
func (s *sim) status(msg *message) {
	zone := s.m.zone(msg.from)
	for _, o := range s.nodes {
		if o.i == msg.from {
			continue
		}
		if msg.reach != reachAll && (s.m.zone(o.i) == zone) != (msg.reach == reachZone) {
			continue
		}
		s.events++
		s.receive(o, msg)
		if s.done || s.stalled() {
			return
		}
	}
}

// receive: a message reaches node n. A node that left bounces it, a dead
// one hears nothing.
func (s *sim) receive(n *node, msg *message) {
	if n.gone {
		s.bounce(n, msg)
		return
	}
	if n.dead {
		return
	}
	s.deliver(n, msg)
}

// deliver hands a message to node n.
func (s *sim) deliver(n *node, msg *message) {
	from := s.nodes[msg.from].id
	n.debt += s.m.Overhead
	if msg.kind == msgReply {
		n.acct.answered(s.now, msg.from)
	}
	if !n.serving {
		s.notServing(n, msg)
		return
	}
	switch msg.kind {
	case msgRequest:
		if n.pol == nil {
			s.send(n, msg.from, &message{kind: msgReply}, 0)
			return
		}
		a := clusterpolicy.Answer(n.pol, s.at(), from, msg.want, msg.lifeline, s.load(n), n.lendable())
		s.act(n, []clusterpolicy.Action{a})
	case msgReply:
		n.counts.Borrowed += int64(len(msg.tasks))
		n.returns.Borrowed(from, len(msg.tasks))
		for _, t := range msg.tasks {
			s.groups.at(t.group).arrived = s.now
		}
		if n.draining {
			if n.pol != nil {
				s.act(n, n.pol.StealReply(s.at(), from, len(msg.tasks)))
			}
			s.handBack(n, msg.tasks)
			return
		}
		n.injected = append(n.injected, msg.tasks...)
		if n.pol != nil {
			s.act(n, n.pol.StealReply(s.at(), from, len(msg.tasks)))
		}
		if len(msg.tasks) > 0 {
			s.arrived(n, len(msg.tasks))
		}
	case msgLoad:
		if n.pol != nil {
			s.act(n, n.pol.LoadReport(s.at(), from, msg.load))
		}
	case msgResult:
		for _, g := range msg.groups {
			lent := s.groups.at(g)
			if lent.lost {
				continue // its lender runs it again already
			}
			gr := s.groups.at(lent.parent)
			gr.pending--
			if gr.pending == 0 {
				s.groupDone(lent.parent)
				if s.done {
					return
				}
			}
		}
		s.maybeLeave(n)
	case msgHandBack:
		s.unlend(n, msg.tasks)
	}
}

// unlend gives lender back tasks it lent that never started: each is its
// own again, in the group it was lent from (the loan's group is closed,
// its result never awaited), and lender runs it; not a re-run.
func (s *sim) unlend(lender *node, tasks []Task) {
	for _, t := range tasks {
		g := s.groups.at(t.group)
		g.lost = true
		t.group, t.lent = g.parent, false
		lender.injected = append(lender.injected, t)
	}
	if len(tasks) > 0 {
		s.arrived(lender, len(tasks))
	}
}

// fail kills node n: its workers stop, and its tasks are gone.
func (s *sim) fail(n *node) {
	n.dead = true
	for i := range n.ws {
		w := &n.ws[i]
		if w.busy {
			n.acct.free(s.now)
		}
		w.dq, w.head, w.frames, w.busy = nil, 0, nil, false
	}
	n.injected = nil
}

// detect: the other nodes notice that n died. Their policies hear it
// leave, and each lender runs again the tasks it lent to n that had not
// come back.
func (s *sim) detect(dead *node) {
	for _, n := range s.nodes {
		n.acct.forget(s.now, dead.i)
		n.returns.Forget(dead.id) // its results would be lost with it
		if n.dead || n.pol == nil {
			continue
		}
		s.act(n, n.pol.Membership(s.at(), clusterpolicy.MemberEvent{Node: dead.id, Joined: false}))
	}
	for g := range s.groups.len() {
		gr := s.groups.at(int32(g))
		if gr.home != dead.i || gr.parent < 0 || gr.pending == 0 || gr.lost {
			continue
		}
		gr.lost = true
		lender := s.nodes[gr.lender]
		if lender.dead {
			continue
		}
		t := gr.task // as it was before it was lent: the lender's own
		lender.counts.Reruns++
		lender.injected = append(lender.injected, t)
		s.arrived(lender, 1)
	}
}

// notServing answers a message that came before the job's start, as a
// node does that is not in the job yet: a request gets no task, and a load
// report is dropped. No policy gives tasks to a node it has not heard
// from, and a node not in the job says nothing.
func (s *sim) notServing(n *node, msg *message) {
	switch msg.kind {
	case msgRequest:
		s.send(n, msg.from, &message{kind: msgReply}, 0)
	case msgReply, msgResult:
		if len(msg.tasks) > 0 || msg.kind == msgResult {
			panic(fmt.Sprintf("sim: node %d got tasks or a result before the job reached it", n.i))
		}
	}
}
