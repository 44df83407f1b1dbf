package sched

import "time"

// NodeID names a node of a cluster (its memberlist name).
type NodeID string

// Load is what a node tells others of itself: a compact summary small enough
// to ride in gossip metadata.
type Load struct {
	Ready   int     // ready tasks in the node's deques
	Workers int     // workers of the node
	Idle    int     // workers currently without work
	Rate    float64 // tasks completed per second, filtered
}

// MemberEvent says a node joined or left (or was declared dead).
type MemberEvent struct {
	Node   NodeID
	Zone   string
	Joined bool
}

// ActionKind says what a policy wants done.
type ActionKind uint8

const (
	// Nothing: keep going as before.
	Nothing ActionKind = iota
	// StealLocal: try to steal from worker Action.Worker of this node.
	StealLocal
	// Park: stop looking for work until woken by new work.
	Park
	// Fish: ask node Action.Node for up to Action.Count tasks.
	Fish
	// Give: send up to Action.Count of this node's oldest ready tasks to
	// Action.Node.
	Give
	// Refuse: answer node Action.Node's request with no task.
	Refuse
	// Defer: keep node Action.Node's request and answer it later (when a
	// task is spawned, the policy is asked again).
	Defer
)

// Action is a policy's answer to an event. The engine that hosts the policy
// carries it out; the policy itself never touches a deque or a socket, so
// the same code runs in the runtime, in unit tests and in a simulator.
type Action struct {
	Kind   ActionKind
	Worker int
	Node   NodeID
	Count  int
}

// Policy is a scheduler: it hears the events of one node and answers with
// actions. Idle may be called by several workers at once (each with its own
// w); the other methods are called one at a time. A policy must not block.
type Policy interface {
	// Name is how the policy is named on the command line.
	Name() string
	// Idle: worker w found its deque empty; attempt counts its failed
	// attempts since it last had work (0 on the first).
	Idle(w, attempt int) Action
	// Spawned: a task was pushed while the policy had asked for spawn
	// events (WantsSpawns), e.g. to answer a deferred request.
	Spawned(ready int) []Action
	// StealRequest: node from asks this node for work; ready is how many
	// tasks this node could give.
	StealRequest(from NodeID, ready int) Action
	// StealReply: the answer to an earlier Fish arrived with n tasks.
	StealReply(from NodeID, n int) []Action
	// LoadReport: node from reported its load.
	LoadReport(from NodeID, l Load) []Action
	// Membership: a node joined or left.
	Membership(ev MemberEvent) []Action
	// Tick: time passed; self is this node's load now.
	Tick(now time.Time, self Load) []Action
	// WantsSpawns reports whether Spawned should be called. Asked on the
	// spawn path, so it must be cheap.
	WantsSpawns() bool
}
