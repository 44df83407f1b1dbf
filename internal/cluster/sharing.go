package cluster

import (
	"slices"
	"sync"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/jobid"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/share"
)

// Sharing a node between jobs. A node serves every job its sharing policy
// (package share) admits, each in an engine with a pool of its own, and on
// every tick asks the policy for each job's grant and carries it out:
//
//   - Workers: how many of the job's pool's workers may run tasks
//     (sched.Port.SetShare). The rest wait between tasks, off the CPU.
//   - Active: whether the node takes part in the job. A node that stops
//     taking part leaves the job as a draining node leaves the cluster:
//     it tells the job's nodes (jobPresence; their policies hear Leaving,
//     the root counts it out), takes no more of the job's work, hands
//     back the borrowed tasks it has not started and runs the others to
//     their end, with every worker, before its grant falls to nothing. A
//     node that takes part again tells them too (their policies hear
//     Joined), and fishes or is pushed to as any newcomer.
//
// The root of a job waits for the least nodes it asked for (AwaitNodes)
// by counting the jobPresence messages that say a node takes part.

// sharing is the node's side of its sharing policy: on every tick, a
// job's start and its end, it asks the policy for each served job's grant
// and carries it out (apply). Safe for concurrent use: apply runs one at a
// time, under mu, which is taken before the job table's.
type sharing struct {
	self    clusterpolicy.NodeID
	workers int // the node's own runtime's
	policy  share.Policy
	jobs    *jobTable
	peers   *peerBook

	mu sync.Mutex
}

// apply asks the sharing policy for each served job's grant and carries
// it out.
func (s *sharing) apply() {
	s.mu.Lock()
	defer s.mu.Unlock()
	var served []*engine
	v := share.View{Self: string(s.self), Workers: s.workers}
	for _, e := range s.jobs.list() {
		if e.rooted != nil {
			continue
		}
		served = append(served, e)
		v.Jobs = append(v.Jobs, e.info)
		l := e.pool.Port().Load()
		v.Busy = append(v.Busy, min(e.pool.Port().Share(), l.Workers-l.Idle))
	}
	if len(served) == 0 {
		return
	}
	v.Nodes = s.servingNodes(v.Jobs)
	for i, g := range s.policy.Grants(v) {
		served[i].grant(g)
	}
}

// servingNodes are the cluster's nodes that serve jobs, by name: the
// members that are not clients and root none of jobs, this node among
// them.
func (s *sharing) servingNodes(jobs []share.Job) []string {
	roots := map[string]bool{}
	for _, j := range jobs {
		roots[j.Root] = true
	}
	out := []string{string(s.self)}
	for id, m := range s.peers.members() {
		if !m.Client && !roots[string(id)] {
			out = append(out, string(id))
		}
	}
	slices.Sort(out)
	return out
}

// admits says whether the policy lets the node serve job j beside the
// jobs it keeps, and if not, why.
func (s *sharing) admits(j share.Job, keep []share.Job) (bool, string) {
	return s.policy.Admit(share.View{Self: string(s.self), Workers: s.workers, Jobs: keep}, j)
}

// grant carries out the sharing policy's grant for e's job. A draining
// node keeps every worker on what it holds and tells no one it takes part
// again: it is on its way out (Drain).
func (e *engine) grant(g share.Grant) {
	if e.n.draining.Load() {
		e.pool.Port().SetShare(e.pool.Workers())
		return
	}
	presence := presenceInactive
	if g.Active {
		presence = presenceActive
	}
	// sharing.apply runs one at a time: a swap sees every change.
	if e.presence.Swap(presence) != presence {
		e.setActive(g.Active)
	}
	workers := g.Workers
	if !g.Active && (e.borrowed.len() > 0 || e.pool.Port().Load().Ready > 0) {
		// It runs what it started to the end, and what comes back to it:
		// a task it lent to a node that died, or could not send.
		workers = e.pool.Workers()
	}
	e.pool.Port().SetShare(workers)
}

// withdraw tells the workers the engine takes no more work (its advice:
// every spawn a task, when leaving) and hands back the loans it has not
// started: a node that drains, or that its sharing policy deals out of
// the job. What it has started it finishes.
func (e *engine) withdraw() {
	e.mu.Lock()
	e.advise()
	e.mu.Unlock()
	e.borrower.handBackUnstarted()
}

// setActive makes the node take part in e's job, or leave it (presence is
// set already), and tells the job's nodes.
func (e *engine) setActive(on bool) {
	if on {
		e.mu.Lock()
		e.advise()
		e.mu.Unlock()
	} else {
		e.withdraw()
	}
	e.n.netLog.Info("taking part in a job", "job", jobid.ID(e.info.ID), "root", e.info.Root, "active", on)
	m := &jobPresence{Job: e.info.ID, Active: on}
	tm := encodeMessage(m)
	peers := e.n.peers.listFor(e.hears)
	for id, addr := range peers {
		if err := e.n.out.transmitEncoded(addr, m, tm, false, e); err != nil {
			e.n.log.Debug("a peer did not hear whether this node takes part in the job", "peer", id, "err", err)
		}
	}
	if _, member := peers[e.root()]; !member && e.rooted == nil {
		// Gossip holds the root dead (a cut, a pause): it counts on this
		// word all the same, to begin the job (AwaitNodes).
		e.tellRoot()
	}
}

// tellRoot tells the root of e's job, again, whether this node takes part
// in it. The word setActive sent may have been lost: sent while gossip
// held the root dead, or queued on a connection that was then closed
// (transport's userTimeout). So a node says it again whenever the root
// shows it may have missed it: the root is heard again after gossip held
// it dead (rootIsBack), or it invites the node again to a job it already
// serves (the root re-invites a node it has not heard from:
// reinviteSilent).
func (e *engine) tellRoot() {
	p := e.presence.Load()
	if e.rooted != nil || p == presenceUnknown {
		return // the sharing policy has not decided: setActive will tell
	}
	m := &jobPresence{Job: e.info.ID, Active: p == presenceActive}
	if err := e.n.out.send(e.root(), e.rootWatch.addr, m, e); err != nil {
		e.n.log.Debug("the job's root did not hear whether this node takes part in it", "root", e.root(), "err", err)
	}
}

// presenceArrived: peer takes part in a job, or no longer does. The root
// counts it; every engine of the job tells its policy, once gossip has
// brought the peer (with its address: until then a policy could not reach
// it, and it hears the peer join when gossip comes).
func (in inbox) presenceArrived(peer clusterpolicy.NodeID, m *jobPresence) {
	e := in.n.jobs.of(m.Job)
	if e == nil {
		return
	}
	meta, member := in.n.peers.meta(peer)
	e.event(func(now time.Time) []clusterpolicy.Action {
		if j := e.rooted; j != nil {
			j.active[peer] = m.Active
			notify(j.reported)
		}
		if !member || !e.hears(peer, meta) {
			return nil
		}
		return e.policy.Membership(now, clusterpolicy.MemberEvent{Node: peer, Zone: meta.Zone, Joined: m.Active, Leaving: !m.Active})
	})
}

// JobShare is what a node gives one job it serves or roots (Snapshot).
type JobShare struct {
	Job  string `json:"job"`  // hex
	Root string `json:"root"` // the node its root task runs on
	// Began is when the root began the job (Unix ns, its clock): jobs
	// arrived in this order.
	Began   int64 `json:"began_ns"`
	Rooted  bool  `json:"rooted"`
	Active  bool  `json:"active"`  // the node takes part in the job
	Workers int   `json:"workers"` // workers that may run its tasks here
	Ready   int   `json:"ready"`   // its ready tasks here
	Holding int   `json:"holding"` // tasks borrowed for it and not yet done
	// TasksRun is how many of its tasks this node has run.
	TasksRun int64 `json:"tasks_run"`
	// Progress is what its tasks here reported of its progress
	// (tsys.Ctx.AddProgress); JobProgress sums the nodes'.
	Progress sched.Progress `json:"progress"`
}

// shares lists what the node gives each of its jobs, in order.
func (s *sharing) shares() []JobShare {
	var out []JobShare
	for _, e := range s.jobs.list() {
		active := e.rooted != nil || e.presence.Load() == presenceActive
		held := e.borrowed.len()
		out = append(out, JobShare{
			Job: jobid.ID(e.info.ID).String(), Root: e.info.Root, Began: e.info.Began, Rooted: e.rooted != nil, Active: active,
			Workers: e.pool.Port().Share(), Ready: e.pool.Port().Load().Ready, Holding: held, TasksRun: e.pool.Port().TasksDone(), Progress: e.pool.View().Progress(),
		})
	}
	return out
}
