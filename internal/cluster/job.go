package cluster

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/tsys-go/tsys/internal/buildinfo"
	"github.com/tsys-go/tsys/internal/jobid"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/invariant"
	"github.com/tsys-go/tsys/internal/net/membership"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/share"
)

// NodeReport is one node's counters for a job.
type NodeReport struct {
	Node    string   `json:"node"`
	Workers int      `json:"workers"`
	Stats   JobStats `json:"stats"`
	// PerWorker are the node's workers' own counters; the network's are
	// the node's, in Stats only (WorkerStats).
	PerWorker []JobStats `json:"per_worker,omitempty"`
	// JoinedAtNs is when, after the job began, the root invited a node
	// that joined the cluster during the job (0: it was there at the
	// start). FirstWorkNs is how long after its start on the job the node
	// got its first task from another node (0: none).
	JoinedAtNs  int64 `json:"joined_at_ns,omitempty"`
	FirstWorkNs int64 `json:"first_work_ns,omitempty"`
}

// Job is a job this node is the root of.
type Job struct {
	ID   uint64
	e    *engine
	opts JobOptions
	// tasks are the names of this binary's tasks that may cross nodes,
	// which every jobStart lists with their fingerprints (prints): read
	// once, as the job begins.
	tasks  []string
	prints []taskPrint
	// peers are the nodes serving the job: the members when it began and
	// those that joined while it ran (invite), with when each was invited
	// (joinedAt, late joiners only). reports are the peers' reports as
	// they come: at the job's end, or before when a node leaves (Drain);
	// reported signals each, and each change of active: the peers that
	// take part now, as their sharing policies say (jobPresence). ended
	// stops invitations. The engine's mu guards them all.
	peers     map[clusterpolicy.NodeID]string
	joinedAt  map[clusterpolicy.NodeID]time.Duration
	invitedAt map[clusterpolicy.NodeID]time.Time // the last invitation (reinviteSilent)
	reports   map[clusterpolicy.NodeID]peerReport
	active    map[clusterpolicy.NodeID]bool
	reported  chan struct{}
	ended     bool
	// inviting is held while a jobStart is sent, and by EndJob before it
	// sends the ends: a node's start is then on its connection before its
	// end. Taken before the engine's mu.
	inviting sync.Mutex
	// Timelines are the peers' timelines, when the job records them,
	// each with its clock's offset from this node's; EndJob fills it.
	// This node's own is its pool's (sched.View.TimelineData).
	Timelines []NodeTimeline
}

// JobOptions are how a job runs on every node.
type JobOptions struct {
	// MeasureWorkSpan has every node measure work and span (lent tasks
	// and results carry their clocks on the critical path); the root's
	// runtime reports them. Nodes should not inline then (tsys.
	// MeasureWorkSpan says why): tsys run --nodes starts them so.
	MeasureWorkSpan bool
	// TimelineCap, when above 0, has every node record a timeline of at
	// most that many events per worker (fewer where a report could not
	// carry them); EndJob collects them in Job.Timelines.
	TimelineCap int
	// MinNodes and MaxNodes are the least and most nodes, besides this
	// one, the job can use (0: at least 1, at most all), for nodes that
	// share by equipartition (share.Equi); AwaitNodes waits for the least.
	MinNodes, MaxNodes int
}

// peerReport is a peer's report of a job, and its timeline if it kept one.
type peerReport struct {
	NodeReport
	timeline *NodeTimeline
}

// BeginJob starts a job whose root task runs on this node: every member
// starts serving it, and so does every node that joins before EndJob. A
// node that serves other roots' jobs roots none of its own.
func (n *Node) BeginJob(o JobOptions) (*Job, error) {
	sharedBy := n.sharing.policy.Name()
	if n.cfg.Client {
		sharedBy = ""
	}
	if err := n.peers.disagreement(n.schedulerName, sharedBy); err != nil {
		return nil, err
	}
	var b [8]byte
	rand.Read(b[:])
	tasks := sched.LendableKinds()
	j := &Job{ID: binary.LittleEndian.Uint64(b[:]) | 1, opts: o, tasks: tasks, prints: printsOf(tasks), peers: map[clusterpolicy.NodeID]string{},
		joinedAt: map[clusterpolicy.NodeID]time.Duration{}, invitedAt: map[clusterpolicy.NodeID]time.Time{}, reports: map[clusterpolicy.NodeID]peerReport{},
		active: map[clusterpolicy.NodeID]bool{}, reported: make(chan struct{}, 1)}
	info := share.Job{ID: j.ID, Root: string(n.name), Began: time.Now().UnixNano(), Min: o.MinNodes, Max: o.MaxNodes}
	n.jobs.mu.Lock()
	for _, e := range n.jobs.engines {
		n.jobs.mu.Unlock()
		return nil, fmt.Errorf("node %s is serving job %s of %s; run a job's root on a node of its own (tsys run --join)", n.name, jobid.ID(e.info.ID), e.info.Root)
	}
	if !n.jobs.takeLocked(n.jobs.main) {
		n.jobs.mu.Unlock()
		if n.server.stopping.Load() > 0 {
			return nil, fmt.Errorf("node %s is still stopping a job it served; begin the job again in a moment", n.name)
		}
		invariant.Throw("cluster: the node's runtime is taken, and no engine has it")
	}
	j.e = newEngine(n, info, j, n.jobs.main)
	n.jobs.enterLocked(j.e)
	n.jobs.mu.Unlock()
	j.e.pool.SetWorkSpan(o.MeasureWorkSpan)
	j.e.timeline.record(o.TimelineCap)
	// A member that joins from here on is invited by onMember; one that
	// both this list and onMember see is invited once (invite).
	for id, addr := range n.peers.list() {
		j.invite(id, addr, false)
	}
	j.e.event(j.e.policy.JobStarted)
	return j, nil
}

// invite asks node id to serve job j, unless it already does, j has
// ended, it is a client (which serves no job but its own), or gossip says
// it left or is leaving (inviteLate runs on after the event that called
// it); late says it joined the cluster during the job. A node that cannot
// be reached is left out of the job.
func (j *Job) invite(id clusterpolicy.NodeID, addr string, late bool) {
	n := j.e.n
	if m, _ := n.peers.meta(id); m.Client || n.peers.away(id) {
		return
	}
	e := j.e
	j.inviting.Lock()
	defer j.inviting.Unlock()
	e.mu.Lock()
	_, already := j.peers[id]
	if j.ended || already {
		e.mu.Unlock()
		return
	}
	j.peers[id] = addr
	j.invitedAt[id] = time.Now()
	if late {
		j.joinedAt[id] = time.Since(e.began)
	}
	e.mu.Unlock()
	if err := e.n.out.transmit(addr, j.start(), true, e); err != nil {
		n.log.Warn("peer cannot take part in the job", "peer", id, "err", err)
		e.mu.Lock()
		delete(j.peers, id)
		e.mu.Unlock()
	}
}

// start is the invitation to the job.
func (j *Job) start() *jobStart {
	e, n := j.e, j.e.n
	return &jobStart{Job: j.ID, ReplyTo: n.trAddr, MeasureWorkSpan: j.opts.MeasureWorkSpan,
		TimelineCap: uint64(max(j.opts.TimelineCap, 0)), Began: e.info.Began,
		MinNodes: uint32(max(e.info.Min, 0)), MaxNodes: uint32(max(e.info.Max, 0)),
		Tasks: j.tasks, Binary: buildinfo.Binary(),
		Printed: true, Prints: j.prints, Build: buildinfo.Current(), AcceptBuilds: n.cfg.AcceptBuilds}
}

// reinviteAfter is how long a root waits to hear whether an invited node
// takes part in its job before it invites the node again: far longer
// than an answer takes, even under load, and short against the wait of a
// job that needs the node to begin (JobOptions.MinNodes).
const reinviteAfter = 2 * time.Second

// reinviteSilent invites again, at now, each node invited reinviteAfter
// ago or more that has not said whether it takes part (jobPresence) nor
// refused. An invitation, or the answer to it, can be lost: a cut or a
// pause has either side hold the other dead for a while (a node tells
// only the members it knows; a root invites only those), and a
// connection that made no progress for transport's userTimeout is closed
// with what was queued on it. Nothing else would send either again, and a
// job waiting for its least nodes would wait for good (cmd/tsys/badnet's
// root cut as the job began). A node that already serves the job answers
// an invitation by saying again whether it takes part (rootIsBack). It
// never waits: it runs on the node's tick, and skips a round while an
// invitation is being sent.
func (j *Job) reinviteSilent(now time.Time) {
	if !j.inviting.TryLock() {
		return
	}
	defer j.inviting.Unlock()
	e := j.e
	e.mu.Lock()
	if j.ended {
		e.mu.Unlock()
		return
	}
	var due map[clusterpolicy.NodeID]string
	for id, addr := range j.peers {
		_, heard := j.active[id]
		_, reported := j.reports[id]
		if heard || reported || now.Sub(j.invitedAt[id]) < reinviteAfter {
			continue
		}
		j.invitedAt[id] = now
		if due == nil {
			due = map[clusterpolicy.NodeID]string{}
		}
		due[id] = addr
	}
	e.mu.Unlock()
	for id, addr := range due {
		addr, _ = e.n.peers.addressOf(id, addr)
		e.n.netLog.Info("an invited node has not said whether it takes part in the job; inviting it again", "peer", id)
		if err := e.n.out.transmit(addr, j.start(), false, e); err != nil {
			e.n.log.Debug("could not invite a node again", "peer", id, "err", err)
		}
	}
}

// inviteLate invites a member that gossip brought at seen, if this node
// is the root of a running job and the member runs the same scheduler. A
// member seen before the job began was in BeginJob's list: it is not one
// that joined during the job, though this may invite it before BeginJob
// does.
func (g gossipInbox) inviteLate(id clusterpolicy.NodeID, meta membership.Meta, seen time.Time) {
	j := g.n.jobs.rooted()
	if j == nil {
		return
	}
	if meta.Scheduler != g.n.schedulerName {
		g.n.log.Warn("a node of another scheduler joined during the job; it is left out", "peer", id, "its", meta.Scheduler, "ours", g.n.schedulerName)
		return
	}
	j.invite(id, meta.Transport, seen.After(j.e.began))
}

// AwaitNodes waits until at least MinNodes nodes take part in job j (as
// their sharing policies say), or ctx ends: a job that cannot have its
// least waits (share.Equi). waiting is called once if the least has not
// come within awaitQuietly, the time the nodes' answers take to arrive,
// with how many nodes take part and how many of the cluster's members
// serve jobs at all. It returns how long it waited: 0 if the least took
// part at once.
func (n *Node) AwaitNodes(ctx context.Context, j *Job, waiting func(have, serving int)) (time.Duration, error) {
	least := max(j.opts.MinNodes, 0)
	began := time.Now()
	told := false
	for first := true; ; first = false {
		have := j.activeNodes()
		if have >= least {
			if first {
				return 0, nil
			}
			return time.Since(began), nil
		}
		if !told && waiting != nil && time.Since(began) >= awaitQuietly {
			waiting(have, len(n.sharing.servingNodes(nil))-1) // but this one
			told = true
		}
		select {
		case <-j.reported:
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return time.Since(began), fmt.Errorf("job %s has %d of the %d nodes it needs: %w", jobid.ID(j.ID), have, least, context.Cause(ctx))
		}
	}
}

// awaitQuietly is how long AwaitNodes waits before it says so: the nodes
// that take part say so within a few ticks of the job's start.
const awaitQuietly = time.Second

// activeNodes counts the peers that take part in j.
func (j *Job) activeNodes() int {
	j.e.mu.Lock()
	defer j.e.mu.Unlock()
	have := 0
	for id, on := range j.active {
		if _, serving := j.peers[id]; on && serving {
			have++
		}
	}
	return have
}

// EndJob ends the job: every node serving it stops and reports its
// counters, which EndJob returns (this node's own are the caller's). A node
// that left during the job reported before it went; one that died is not
// waited for.
func (n *Node) EndJob(j *Job) []NodeReport {
	e := j.e
	j.inviting.Lock()
	e.mu.Lock()
	j.ended = true // no more invitations
	j.inviting.Unlock()
	waiting := map[clusterpolicy.NodeID]string{}
	for id, addr := range j.peers {
		if _, ok := j.reports[id]; !ok {
			waiting[id] = addr
		}
	}
	e.mu.Unlock()
	for id, addr := range waiting {
		end := &jobEnd{Job: j.ID, SentAt: time.Now().UnixNano()}
		if n.peers.isGone(id) {
			// Gossip has it dead, so its report is not waited for
			// (dropGone); it is told without waiting on the line,
			// which to a node cut off hangs until the dial, the
			// handshake or TCP gives up (badnet's 15 s worker cut
			// waited out the cut here).
			e.n.out.transmit(addr, end, false, e)
			continue
		}
		if err := e.n.out.transmit(addr, end, true, e); err != nil {
			n.log.Warn("peer missed the end of the job", "peer", id, "err", err)
			e.mu.Lock()
			delete(j.peers, id)
			e.mu.Unlock()
		}
	}
	timeout := time.After(reportWait)
	// Gossip's word that a node died comes as an event (peerGone), but a
	// node may have been counted on after it (an invitation racing its
	// death): look again at every check, so that such a node costs the
	// end of the job no more than a check.
	recheck := time.NewTicker(checkEvery)
	defer recheck.Stop()
	for j.dropGone(n.peers.isGone); !j.allReported(); j.dropGone(n.peers.isGone) {
		select {
		case <-j.reported:
		case <-recheck.C:
		case <-timeout:
			n.log.Warn("peers did not report the end of the job; the job's counters leave them out", "waited", reportWait, "missing", j.Waiting())
			e.mu.Lock()
			maps.DeleteFunc(j.peers, func(id clusterpolicy.NodeID, _ string) bool { _, ok := j.reports[id]; return !ok })
			e.mu.Unlock()
		}
	}
	e.mu.Lock()
	var reports []NodeReport
	for id, r := range j.reports {
		r.JoinedAtNs = int64(j.joinedAt[id])
		reports = append(reports, r.NodeReport)
		if r.timeline != nil {
			j.Timelines = append(j.Timelines, *r.timeline)
		}
	}
	e.mu.Unlock()
	e.lender.close()
	n.jobs.remove(e)
	slices.SortFunc(reports, func(a, b NodeReport) int { return strings.Compare(a.Node, b.Node) })
	return reports
}

// reportWait bounds how long EndJob waits for the peers' reports: a
// node stopped or starved longer than that is left out of the counters,
// not waited for. One gossip has dead is not waited for at all. A
// variable for the tests, which wait on their own bound.
var reportWait = 10 * time.Second

// dropGone stops counting on the reports of the nodes serving j that have
// not reported and that gone says gossip has dead, and logs them.
func (j *Job) dropGone(gone func(clusterpolicy.NodeID) bool) {
	j.e.mu.Lock()
	var dropped []clusterpolicy.NodeID
	for id := range j.peers {
		if _, ok := j.reports[id]; !ok && gone(id) {
			delete(j.peers, id)
			dropped = append(dropped, id)
		}
	}
	j.e.mu.Unlock()
	for _, id := range dropped {
		j.e.n.log.Info("gossip has a node of the job dead; its end-of-job report is not waited for", "peer", id)
	}
}

// allReported says whether every node still serving j has reported.
func (j *Job) allReported() bool { return j.missingReports() == 0 }

// missingReports counts the nodes serving j that have not reported.
func (j *Job) missingReports() int {
	j.e.mu.Lock()
	defer j.e.mu.Unlock()
	missing := 0
	for id := range j.peers {
		if _, ok := j.reports[id]; !ok {
			missing++
		}
	}
	return missing
}

// peerGone: node id left or died during job j. It reported already if it
// left gracefully (Drain); if not, nothing more will come from it.
func (j *Job) peerGone(id clusterpolicy.NodeID) {
	j.e.mu.Lock()
	defer j.e.mu.Unlock()
	if _, ok := j.reports[id]; !ok {
		delete(j.peers, id)
		notify(j.reported)
	}
}

// notify signals c without blocking: c has room for one signal, which is
// all a waiter needs to look again.
func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Own returns this node's counters of the job it is the root of, given its
// pool's.
func (n *Node) Own(pool sched.Stats) NodeReport {
	if j := n.jobs.rooted(); j != nil {
		return j.e.report(pool)
	}
	return NodeReport{Node: string(n.name), Workers: n.jobs.main.Workers(), Stats: JobStats{Stats: pool}}
}

// refused: a node will not serve job j (admit says why); j runs without
// it.
func (in inbox) refused(peer clusterpolicy.NodeID, m *jobRefused) {
	e := in.n.jobs.of(m.Job)
	if e == nil || e.rooted == nil {
		return
	}
	e.mu.Lock()
	delete(e.rooted.peers, peer)
	notify(e.rooted.reported)
	e.mu.Unlock()
	if len(m.Lacks) > 0 || m.OtherBuild {
		// Not a choice of the node's sharing policy but a cluster of
		// mixed binaries: the person running it should hear of it.
		what := "a node lacks this job's tasks; the job runs without it"
		if len(m.Lacks) == 0 {
			what = "a node runs another build of this program; the job runs without it"
		}
		in.n.netLog.Warn(what, "peer", peer, "why", m.Reason)
		return
	}
	in.n.netLog.Info("a node will not serve this job; it runs without it", "peer", peer, "why", m.Reason)
}

// reportArrived collects a peer's end-of-job report, and its timeline.
func (in inbox) reportArrived(from clusterpolicy.NodeID, m *jobReport) {
	var r peerReport
	if err := json.Unmarshal(m.Report, &r.NodeReport); err != nil {
		in.n.netLog.Warn("a peer's job report does not decode", "peer", from, "err", err)
		return
	}
	e := in.n.jobs.of(m.Job)
	if e == nil || e.rooted == nil {
		in.n.log.Debug("a job report for no job of this node", "peer", from)
		return
	}
	tl, err := e.timeline.decode(from, m.Timeline)
	if err != nil {
		in.n.netLog.Warn("a peer's timeline is left out", "peer", from, "err", err)
	}
	r.timeline = tl
	e.mu.Lock()
	defer e.mu.Unlock()
	j := e.rooted
	j.reports[from] = r
	notify(j.reported)
}
