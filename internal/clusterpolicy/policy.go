package clusterpolicy

import "time"

// NodeID names a node of a cluster (its memberlist name).
type NodeID string

// Load is what a node knows and tells of its own load: the one record the
// pool measures, the cluster gossips and the policies read.
type Load struct {
	Ready   int // ready tasks in the node's deques and injected queue
	Workers int // workers of the node
	Idle    int // workers parked for want of work
	// Rate is the useful work the node completes: worker-seconds spent
	// running tasks, as far as the CPU ran them (UsefulWork), per second
	// of wall time, filtered (RateMeter). A node of W busy workers on
	// dedicated cores approaches W; competing load, a slower machine or
	// starvation show as less.
	Rate float64
	// Busy is the worker-seconds per second the workers had work, filtered
	// like Rate: Rate/Busy is the share of a core a busy worker gets.
	Busy float64
	// TaskTime is the useful (CPU) time an executed task took on average,
	// inlined calls included: what a ready task is worth. 0 while unknown.
	TaskTime time.Duration
}

// Waiting says every worker waits and nothing is ready: the node's work,
// if any, is all elsewhere.
func (l Load) Waiting() bool { return l.Workers > 0 && l.Idle == l.Workers && l.Ready == 0 }

// AtWork says every worker has work: none waits.
func (l Load) AtWork() bool { return l.Workers > 0 && l.Idle == 0 }

// MemberEvent says a node joined or left (or was declared dead). With
// Leaving (and not Joined) the node has begun to drain: it is still a
// member and still lends what it holds, but takes no more work, so a
// policy should stop giving it any; it leaves for good later.
type MemberEvent struct {
	Node    NodeID
	Zone    string
	Joined  bool
	Leaving bool
}

// ActionKind says what a policy wants done.
type ActionKind uint8

const (
	// Fish: ask node Action.Node for up to Action.Count tasks.
	Fish ActionKind = iota + 1
	// Give: send up to Action.Count of this node's oldest ready tasks to
	// Action.Node (an answer to its request, or a push).
	Give
	// Refuse: answer node Action.Node's request with no task.
	Refuse
	// Defer: keep node Action.Node's request unanswered for now; the
	// policy answers it later with a Give (from Pushed) or a Refuse.
	Defer
	// Report: send this node's load to every peer (a status message
	// each; the peers hear it as LoadReport).
	Report
	// Lifeline: ask node Action.Node for up to Action.Count tasks
	// whenever it has some to spare, rather than now (a lifeline, as X10's
	// GLB has them): a thief that found nothing at random stops asking
	// and waits for the nodes it sent these to. The asked node's policy
	// hears it as a LifelineHolder's LifelineRequest, and answers with a
	// Give, at once or later, however long that takes; an engine whose
	// policy holds no lifelines refuses it at once. The asker's policy
	// hears the answer as StealReply, as any other.
	Lifeline
)

// Action is a policy's answer to an event. The engine that hosts the policy
// carries it out; the policy itself never touches a deque or a socket, so
// the same code runs in the runtime, in unit tests and in a simulator.
type Action struct {
	Kind  ActionKind
	Node  NodeID
	Count int
}

// Never is the HungryAfter of a policy that only another event can make
// act (no peer, every request slot taken).
var Never = time.Unix(1<<62, 0)

// Advice is what a policy tells its engine between events, so that the
// node's workers can act on it without calling the policy: reading it costs
// them an atomic load, not a lock.
type Advice struct {
	// HungryAfter is the earliest time at which Hungry could return an
	// action if no other event came first: the zero time when it could
	// now, Never when only another event can change that.
	HungryAfter time.Time
	// Expose is how many ready tasks the node's workers should keep in
	// their deques beyond what the inlining policy asks for, because other
	// nodes want work: NewTS's allowCCall is the scheduler's question, and
	// a node that inlines every spawn while its peers starve has nothing
	// stealable to give them. 0 leaves inlining to the inlining policy.
	Expose int
	// Reserve is how many borrowed tasks the node should hold in hand: when
	// a worker takes one and fewer are left, the node reports Hungry
	// before it runs dry, so that a round trip to another node overlaps
	// with the work left. 0 asks only when a worker has nothing.
	Reserve int
	// Deferred is how many requests the policy holds unanswered (Defer):
	// while there are any, the engine reports every push (Pushed).
	Deferred int
}

// Policy is a cluster scheduler: how one node moves work to and from other
// nodes. Stealing between the workers of one node is the pool's own
// business (see idle.go); a policy hears the node's events and answers with
// Actions.
//
// Concurrency contract: a policy is a pure state machine. The engine calls
// its methods one at a time, each with the time of the event, and carries
// out the actions; a policy holds no lock, reads no clock and starts no
// goroutine. Fed the same events, it gives the same actions.
type Policy interface {
	// Name is how the policy is named on the command line.
	Name() string
	// Hungry: a worker of this node found no work at home (its own deque,
	// the other workers', the injected queue).
	Hungry(now time.Time) []Action
	// StealRequest: node from asks this node for up to want tasks; self
	// is this node's load now (self.Ready is how many it could give). The
	// answer is Give, Refuse or Defer.
	StealRequest(now time.Time, from NodeID, want int, self Load) Action
	// Pushed: a worker made a task ready while requests were deferred;
	// ready is how many the node could give now.
	Pushed(now time.Time, ready int) []Action
	// StealReply: the answer to an earlier Fish arrived with n tasks.
	StealReply(now time.Time, from NodeID, n int) []Action
	// LoadReport: node from reported its load.
	LoadReport(now time.Time, from NodeID, l Load) []Action
	// Membership: a node joined or left.
	Membership(now time.Time, ev MemberEvent) []Action
	// JobStarted: this node starts on a job, the root when it begins one,
	// any other node when the job's start reaches it. Every node of the
	// job is idle then and wants work at once, before a request has had
	// time to arrive.
	JobStarted(now time.Time) []Action
	// Tick: time passed; self is this node's load now. The engine ticks
	// every few milliseconds.
	Tick(now time.Time, self Load) []Action
	// Advice is read by the engine after every event.
	Advice() Advice
}

// LifelineHolder is a Policy that holds other nodes' lifelines (Lifeline):
// a request for work that waits at this node until it has work to give.
type LifelineHolder interface {
	// LifelineRequest: node from waits for up to want tasks from this
	// node; self is this node's load now. The answer is Give, or Defer:
	// the policy gives later (from Pushed), with no time limit, or
	// refuses when it cannot hold the request.
	LifelineRequest(now time.Time, from NodeID, want int, self Load) Action
}

// DefaultTickEvery is how often a node ticks its policies unless told
// otherwise (cluster.Config.TickEvery): how often they hear the time and
// the node's load is measured, and so what a tick's cost is a share of
// (internal/calibrate). It lives here, with the Tick it paces, so that
// calibration reads it without linking the cluster.
const DefaultTickEvery = 2 * time.Millisecond

// Sleeper is a Policy that can say when it next needs the time, so that a
// node whose load alone cannot make it act stops its tick between events
// rather than waking every few milliseconds for a Tick that does nothing.
// Two loads qualify: a node whose workers all wait for work elsewhere
// (Load.Waiting), and a node whose workers are all at work (Load.AtWork),
// whose tick would otherwise take a core from a worker on every round
// (bench/README.md, "A busy node's tick"). A policy that is not a Sleeper
// is ticked as usual.
type Sleeper interface {
	// NextDue is the earliest time after now at which Tick, told self
	// again, could return an action or change the Advice, if no other
	// event came first: the time a backoff, a deferral or a reply timeout
	// runs out, or a periodic report is due. Never when only another
	// event can make it act; now (or earlier) when it should be ticked at
	// once, or when a change of the load alone, which is no event (a
	// worker spawning, its ready tasks running low), could make it act.
	// The engine asks only right after a Tick with self, only while self
	// is Waiting or AtWork, and ticks the policy at that time (or at the
	// next event, whichever comes first).
	NextDue(now time.Time, self Load) time.Time
}
