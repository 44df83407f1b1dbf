package sim

import (
	"fmt"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/hog"
)

// Model is the machine a simulation runs on: nodes, their speed and load,
// and the network between them. Every field has a default (Defaults) that
// reflects this project's measurements on loopback, bench/README.md.
type Model struct {
	Nodes, Workers int
	// Zones splits the nodes evenly into this many zones (0 or 1: one).
	Zones int
	// Latency is a message's one-way delay inside a zone, CrossLatency
	// between zones (a wide-area link).
	Latency, CrossLatency time.Duration
	// Bandwidth is bytes per second on every link; a message of B bytes
	// takes B/Bandwidth more.
	Bandwidth float64
	// Overhead is the time a message costs its sender and again its
	// receiver (system calls, framing, decoding): added to its delay, and
	// charged to the node's CPU (the next task it starts takes that much
	// longer), so that many status messages slow a node down.
	Overhead time.Duration
	// TaskBytes and ResultBytes are what a lent task's argument and its
	// result weigh on the wire; MessageBytes a message's own framing.
	TaskBytes, ResultBytes, MessageBytes int
	// Tick is how often a node's policy hears the time (cluster's
	// TickEvery).
	Tick time.Duration
	// Inline is the inlining policy (tsys run --inline): a child spawned
	// while its worker's deque holds enough ready tasks runs at once as a
	// call, so the tasks a thief or a peer can take are the ones the
	// runtime would expose. inline.Never() makes every tree node a task.
	Inline inline.Policy
	// Wake is how long a parked worker takes to start on a task that
	// arrived for it.
	Wake time.Duration
	// Spawn is what a child costs when it becomes a task rather than an
	// inlined call: the push, the pop or steal, the task's frame. It is
	// added to the time of each task a worker pushed (not the root, not a
	// call), at the node's speed, as CPU the node spends; T_1 and T_inf
	// stay the workload's, so it shows as efficiency lost, on one worker
	// too, and inlining, which makes fewer tasks, pays less of it. 0 (the
	// default) leaves it in the tasks' own costs, where a workload measured
	// from a real run already has it.
	Spawn time.Duration
	// ResultHold is the longest a borrower holds a result for others to
	// the same lender, to send them in one message (package returns, as
	// the runtime does): 0 takes its default, negative sends each alone.
	ResultHold time.Duration
	// Speed is each node's speed (1: a core of its own); missing nodes
	// run at 1.
	Speed []float64
	// Hogs is competing load per node: the share of its cores a hog
	// takes, constantly or on and off (hog.Spec, as tsys run --hog).
	Hogs map[int]hog.Spec
	// Fail names a node that dies at FailAt (-1: none). The others notice
	// Detect later (gossip's suspicion time), hear it as a member leaving,
	// and run again the tasks they had lent to it, as the runtime does.
	Fail           int
	FailAt, Detect time.Duration
	// Joins are nodes that join the cluster at a time of the run rather
	// than at its start (Kale's expanding job): until then no policy knows
	// them; then every policy hears them join, and the job's start reaches
	// them from the root, as cluster.Node invites a late joiner.
	// Drains are nodes that leave gracefully at a time (tsys drain): from
	// then on they ask for nothing and take nothing, hand back the
	// borrowed tasks they have not started, run what they have, and leave
	// once idle with every result home. A message's delay after the drain
	// begins, the others' policies hear it is leaving (MemberEvent.
	// Leaving, the runtime's leaving message) and give it no more work.
	Joins, Drains map[int]time.Duration
}

// Defaults are the model's parameters when a flag leaves them out.
func Defaults() Model {
	return Model{
		Nodes: 4, Workers: 1, Zones: 1,
		Latency: 50 * time.Microsecond, CrossLatency: 5 * time.Millisecond,
		Bandwidth: 1e9, Overhead: 10 * time.Microsecond,
		TaskBytes: 32, ResultBytes: 16, MessageBytes: 24,
		Tick: 2 * time.Millisecond, Inline: inline.Default(), Wake: 5 * time.Microsecond,
		Fail: -1, Detect: time.Second,
	}
}

// Check says what is wrong with m, naming the parameter.
func (m Model) Check() error {
	switch {
	case m.Nodes < 1:
		return fmt.Errorf("--nodes %d: want at least 1", m.Nodes)
	case m.Workers < 1:
		return fmt.Errorf("--workers %d: want at least 1", m.Workers)
	case m.Zones < 0 || m.Zones > m.Nodes:
		return fmt.Errorf("--zones %d: want 1 to the node count (%d)", m.Zones, m.Nodes)
	case m.Latency < 0:
		return fmt.Errorf("--latency %v: want 0 or more", m.Latency)
	case m.CrossLatency < 0:
		return fmt.Errorf("--cross-latency %v: want 0 or more", m.CrossLatency)
	case m.Bandwidth <= 0:
		return fmt.Errorf("--bandwidth %g: want more than 0 bytes a second", m.Bandwidth)
	case m.Overhead < 0:
		return fmt.Errorf("--overhead %v: want 0 or more", m.Overhead)
	case m.TaskBytes < 0 || m.ResultBytes < 0 || m.MessageBytes < 0:
		return fmt.Errorf("--task-bytes, --result-bytes: want 0 or more")
	case m.Tick <= 0:
		return fmt.Errorf("--tick %v: want more than 0", m.Tick)
	case m.Wake < 0:
		return fmt.Errorf("--wake %v: want 0 or more", m.Wake)
	case m.Spawn < 0:
		return fmt.Errorf("--spawn %v: want 0 or more", m.Spawn)
	case m.Fail == 0:
		return fmt.Errorf("--fail 0@...: node 0 holds the root task, and a job does not outlive it")
	case m.Fail >= m.Nodes:
		return fmt.Errorf("--fail %d@...: there are only nodes 0 to %d", m.Fail, m.Nodes-1)
	case m.Fail > 0 && (m.FailAt < 0 || m.Detect < 0):
		return fmt.Errorf("--fail %d@%v, --detect %v: want times of 0 or more", m.Fail, m.FailAt, m.Detect)
	}
	for i, s := range m.Speed {
		if s <= 0 {
			return fmt.Errorf("--speed: node %d's speed %g: want more than 0", i, s)
		}
	}
	for i := range m.Hogs {
		if i < 0 || i >= m.Nodes {
			return fmt.Errorf("--hog: node %d: there are only nodes 0 to %d", i, m.Nodes-1)
		}
	}
	for flag, nodes := range map[string]map[int]time.Duration{"--add": m.Joins, "--drain": m.Drains} {
		for i, at := range nodes {
			switch {
			case i == 0:
				return fmt.Errorf("%s 0@...: node 0 holds the root task; it is there from the start to the end", flag)
			case i < 0 || i >= m.Nodes:
				return fmt.Errorf("%s %d@...: there are only nodes 0 to %d", flag, i, m.Nodes-1)
			case at < 0:
				return fmt.Errorf("%s %d@%v: want a time of 0 or more", flag, i, at)
			case i == m.Fail:
				return fmt.Errorf("%s %d@... and --fail %d@...: one node, one way out", flag, i, i)
			}
		}
	}
	for i, at := range m.Drains {
		if j, ok := m.Joins[i]; ok && j >= at {
			return fmt.Errorf("--drain %d@%v: the node joins only at %v", i, at, j)
		}
	}
	return nil
}

// zone is node i's zone.
func (m Model) zone(i int) int { return i * max(m.Zones, 1) / m.Nodes }

// delay is how long a message of size bytes takes from node a to node b.
func (m Model) delay(a, b, size int) time.Duration {
	return m.linkDelay(m.zone(a) != m.zone(b), size)
}

// linkDelay is how long a message of size bytes takes inside a zone, or
// between two zones when cross: all a delay depends on, which lets a
// status broadcast reach a zone's nodes with one event (sim.broadcast).
func (m Model) linkDelay(cross bool, size int) time.Duration {
	lat := m.Latency
	if cross {
		lat = m.CrossLatency
	}
	return 2*m.Overhead + lat + time.Duration(float64(size)/m.Bandwidth*1e9)
}

// speed is node i's share of a core per worker at time t: its speed, less
// what its hog takes then.
func (m Model) speed(i int, t time.Duration) float64 {
	s := 1.0
	if i < len(m.Speed) {
		s = m.Speed[i]
	}
	if h, ok := m.Hogs[i]; ok && h.Active(t) {
		s *= 1 - h.Fraction
	}
	return max(s, 1e-6)
}

// startAt is when node i starts on the job. The root sends the job's
// start to every other node in turn, each send costing it Overhead, as
// cluster.Node.BeginJob does, and starts the root task when it has sent
// them all; node i starts when its message arrives.
func (m Model) startAt(i int) time.Duration {
	if i == 0 {
		return time.Duration(m.Nodes-1) * m.Overhead
	}
	return time.Duration(i)*m.Overhead + m.delay(0, i, m.MessageBytes)
}
