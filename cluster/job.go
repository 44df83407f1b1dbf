package cluster

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tsys-go/tsys/sched"
)

// NodeReport is one node's counters for a job.
type NodeReport struct {
	Node    string      `json:"node"`
	Workers int         `json:"workers"`
	Stats   sched.Stats `json:"stats"`
	// PerWorker are the node's workers' own counters; the network's are
	// the node's, in Stats only.
	PerWorker []sched.Stats `json:"per_worker,omitempty"`
	// JoinedAtNs is when, after the job began, the root invited a node
	// that joined the cluster during the job (0: it was there at the
	// start). FirstWorkNs is how long after its start on the job the node
	// got its first task from another node (0: none).
	JoinedAtNs  int64 `json:"joined_at_ns,omitempty"`
	FirstWorkNs int64 `json:"first_work_ns,omitempty"`
}

// serving is the state of a node working for another node's job.
type serving struct {
	job  uint64
	stop chan struct{}
	done chan servingEnd
}

// Job is a job this node is the root of.
type Job struct {
	ID   uint64
	opts JobOptions
	// peers are the nodes serving the job: the members when it began and
	// those that joined while it ran (invite), with when each was invited
	// (joinedAt, late joiners only). reports are the peers' reports as
	// they come: at the job's end, or before when a node leaves (Drain);
	// reported signals each. ended stops invitations. The node's mu
	// guards them all.
	peers    map[sched.NodeID]string
	joinedAt map[sched.NodeID]time.Duration
	reports  map[sched.NodeID]peerReport
	reported chan struct{}
	ended    bool
	// inviting is held while a jobStart is sent, and by EndJob before it
	// sends the ends: a node's start is then on its connection before its
	// end. Taken before the node's mu.
	inviting sync.Mutex
	// Timelines are the peers' timelines, when the job records them,
	// each with its clock's offset from this node's; EndJob fills it.
	// This node's own is its pool's (sched.Pool.TimelineData).
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
}

// peerReport is a peer's report of a job, and its timeline if it kept one.
type peerReport struct {
	NodeReport
	timeline *NodeTimeline
}

// BeginJob starts a job whose root task runs on this node: every member
// starts serving it, and so does every node that joins before EndJob.
func (n *Node) BeginJob(o JobOptions) (*Job, error) {
	if err := n.checkSchedulers(); err != nil {
		return nil, err
	}
	var b [8]byte
	rand.Read(b[:])
	j := &Job{ID: binary.LittleEndian.Uint64(b[:]) | 1, opts: o, peers: map[sched.NodeID]string{},
		joinedAt: map[sched.NodeID]time.Duration{}, reports: map[sched.NodeID]peerReport{}, reported: make(chan struct{}, 1)}
	n.mu.Lock()
	if n.job != 0 {
		n.mu.Unlock()
		return nil, fmt.Errorf("node %s is already running job %x", n.name, n.job)
	}
	n.job = j.ID
	n.rootOf = n.name
	n.rooted = j
	n.jobBegan = time.Now()
	n.offsets = map[sched.NodeID]time.Duration{}
	n.mu.Unlock()
	n.resetCounters()
	n.pool.SetWorkSpan(o.MeasureWorkSpan)
	n.setTimeline(o.TimelineCap)
	// A member that joins from here on is invited by onMember; one that
	// both this list and onMember see is invited once (invite).
	for id, addr := range n.peerList() {
		n.invite(j, id, addr, false)
	}
	n.event(n.policy.JobStarted)
	return j, nil
}

// invite asks node id to serve job j, unless it already does or j has
// ended; late says it joined the cluster during the job. A node that
// cannot be reached is left out of the job.
func (n *Node) invite(j *Job, id sched.NodeID, addr string, late bool) {
	j.inviting.Lock()
	defer j.inviting.Unlock()
	n.mu.Lock()
	_, already := j.peers[id]
	if n.rooted != j || j.ended || already {
		n.mu.Unlock()
		return
	}
	j.peers[id] = addr
	if late {
		j.joinedAt[id] = time.Since(n.jobBegan)
	}
	n.mu.Unlock()
	start := &jobStart{Job: j.ID, ReplyTo: n.trAddr, MeasureWorkSpan: j.opts.MeasureWorkSpan, TimelineCap: uint64(max(j.opts.TimelineCap, 0))}
	if err := n.transmit(addr, start, true); err != nil {
		n.log.Warn("peer cannot take part in the job", "peer", id, "err", err)
		n.mu.Lock()
		delete(j.peers, id)
		n.mu.Unlock()
	}
}

// inviteLate invites a member that joined while this node is the root of
// a running job, if it runs the same scheduler.
func (n *Node) inviteLate(id sched.NodeID, addr, scheduler string) {
	n.mu.Lock()
	j := n.rooted
	n.mu.Unlock()
	if j == nil {
		return
	}
	if scheduler != n.policy.Name() {
		n.log.Warn("a node of another scheduler joined during the job; it is left out", "peer", id, "its", scheduler, "ours", n.policy.Name())
		return
	}
	n.invite(j, id, addr, true)
}

// EndJob ends the job: every node serving it stops and reports its
// counters, which EndJob returns (this node's own are the caller's). A node
// that left during the job reported before it went; one that died is not
// waited for.
func (n *Node) EndJob(j *Job) []NodeReport {
	j.inviting.Lock()
	n.mu.Lock()
	j.ended = true // no more invitations
	j.inviting.Unlock()
	waiting := map[sched.NodeID]string{}
	for id, addr := range j.peers {
		if _, ok := j.reports[id]; !ok {
			waiting[id] = addr
		}
	}
	n.mu.Unlock()
	for id, addr := range waiting {
		if err := n.transmit(addr, &jobEnd{Job: j.ID, SentAt: time.Now().UnixNano()}, true); err != nil {
			n.log.Warn("peer missed the end of the job", "peer", id, "err", err)
			n.mu.Lock()
			delete(j.peers, id)
			n.mu.Unlock()
		}
	}
	timeout := time.After(10 * time.Second)
	for !n.allReported(j) {
		select {
		case <-j.reported:
		case <-timeout:
			n.log.Warn("peers did not report the end of the job", "missing", n.missingReports(j))
			n.mu.Lock()
			maps.DeleteFunc(j.peers, func(id sched.NodeID, _ string) bool { _, ok := j.reports[id]; return !ok })
			n.mu.Unlock()
		}
	}
	n.mu.Lock()
	var reports []NodeReport
	for id, r := range j.reports {
		r.JoinedAtNs = int64(j.joinedAt[id])
		reports = append(reports, r.NodeReport)
		if r.timeline != nil {
			j.Timelines = append(j.Timelines, *r.timeline)
		}
	}
	n.rooted = nil
	n.job = 0
	clear(n.lent)
	n.mu.Unlock()
	slices.SortFunc(reports, func(a, b NodeReport) int { return strings.Compare(a.Node, b.Node) })
	return reports
}

// allReported says whether every node still serving j has reported.
func (n *Node) allReported(j *Job) bool {
	return n.missingReports(j) == 0
}

// missingReports counts the nodes serving j that have not reported.
func (n *Node) missingReports(j *Job) int {
	n.mu.Lock()
	defer n.mu.Unlock()
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
func (n *Node) peerGone(id sched.NodeID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	j := n.rooted
	if j == nil {
		return
	}
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

// Own returns this node's counters of the job, given its pool's.
func (n *Node) Own(pool sched.Stats) NodeReport {
	pool.Add(n.counters())
	return NodeReport{Node: string(n.name), Workers: n.pool.Workers(), Stats: pool, PerWorker: n.pool.WorkerStats(), FirstWorkNs: n.firstWork.Load()}
}

func (n *Node) resetCounters() {
	n.mu.Lock()
	clear(n.fishedAt)
	n.mu.Unlock()
	n.remoteSteals.Store(0)
	n.statusSent.Store(0)
	n.statusBytes.Store(0)
	n.stealRequests.Store(0)
	n.stealAnswers.Store(0)
	n.stealWait.Store(0)
	n.tasksSent.Store(0)
	n.tasksReceived.Store(0)
	n.firstWork.Store(0)
	n.tasksRerun.Store(0)
	n.tasksReturned.Store(0)
	n.mu.Lock()
	n.trBase = n.tr.Stats()
	n.mu.Unlock()
	n.usefulBase.Store(n.usefulNow.Load())
}

// counters are the node's network counters since resetCounters.
func (n *Node) counters() sched.Stats {
	ts := n.tr.Stats()
	n.mu.Lock()
	base := n.trBase
	n.mu.Unlock()
	return sched.Stats{
		RemoteSteals:  n.remoteSteals.Load(),
		StatusSent:    n.statusSent.Load(),
		StatusBytes:   n.statusBytes.Load(),
		StealRequests: n.stealRequests.Load(),
		StealAnswers:  n.stealAnswers.Load(),
		StealWaitNs:   n.stealWait.Load(),
		UsefulNs:      n.usefulNow.Load() - n.usefulBase.Load(),
		TasksSent:     n.tasksSent.Load(),
		TasksReceived: n.tasksReceived.Load(),
		TasksRerun:    n.tasksRerun.Load(),
		TasksReturned: n.tasksReturned.Load(),
		BytesSent:     int64(ts.BytesSent - base.BytesSent),
		MessagesSent:  int64(ts.MessagesSent - base.MessagesSent),
	}
}

// startServing begins work for another node's job.
func (n *Node) startServing(from sched.NodeID, job uint64, o JobOptions) {
	// Checked and claimed in one critical section: two roots' starts come
	// on two connections at once.
	n.mu.Lock()
	if n.serving != nil && n.serving.job == job {
		n.mu.Unlock()
		return
	}
	if reason := n.busyWith(n.job, n.rootOf, from); reason != "" {
		n.mu.Unlock()
		n.log.Info("refusing a job", "root", from, "job", fmt.Sprintf("%x", job), "why", reason)
		if err := n.send(from, "", &jobRefused{Job: job, Reason: reason}); err != nil {
			n.log.Warn("could not refuse a job", "root", from, "err", err)
		}
		return
	}
	old := n.serving
	s := &serving{job: job, stop: make(chan struct{}), done: make(chan servingEnd, 1)}
	n.job, n.rootOf, n.serving, n.jobBegan = job, from, s, time.Now()
	clear(n.lent)
	clear(n.borrowed)
	n.mu.Unlock()
	if old != nil {
		// A job whose root is gone, or that its root has replaced: what
		// it held here is dropped, and its root (if alive) has moved on.
		close(old.stop)
		<-old.done
	}
	n.log.Info("serving a job", "root", from, "job", fmt.Sprintf("%x", job))
	n.resetCounters()
	n.pool.SetWorkSpan(o.MeasureWorkSpan)
	n.setTimeline(n.timelineCap(uint64(max(o.TimelineCap, 0))))
	n.event(n.policy.JobStarted)
	go func() {
		st, err := n.pool.Serve(context.Background(), s.stop)
		if err != nil {
			n.log.Warn("a task of the job failed here", "err", err)
			if addr, ok := n.peer(from); ok {
				n.transmit(addr, &jobFailed{Job: job, Err: fmt.Sprintf("node %s: %v", n.name, err)}, false)
			}
		}
		s.done <- servingEnd{report: n.Own(st), timeline: n.encodeTimeline()}
	}()
}

// busyWith says why this node cannot serve a new job of root from while
// it has job current of root: it drains, or serves another root's job and
// that root is alive. A node serves one job at a time. The job of a root
// that is gone gives way, and so does a root's job to its next one (a
// root runs one job at a time, so the old one is over even if its end did
// not arrive). n.mu held.
func (n *Node) busyWith(current uint64, root, from sched.NodeID) string {
	if n.draining.Load() {
		return fmt.Sprintf("node %s is leaving the cluster", n.name)
	}
	if current == 0 || root == from {
		return ""
	}
	if _, alive := n.peer(root); alive || root == n.name {
		return fmt.Sprintf("node %s serves job %x of %s; it serves one job at a time", n.name, current, root)
	}
	return ""
}

// refused: a node will not serve job j (busyWith says why); j runs
// without it.
func (n *Node) refused(peer sched.NodeID, m *jobRefused) {
	n.mu.Lock()
	j := n.rooted
	ours := j != nil && j.ID == m.Job
	if ours {
		delete(j.peers, peer)
		notify(j.reported)
	}
	n.mu.Unlock()
	if ours {
		n.log.Info("a node will not serve this job; it runs without it", "peer", peer, "why", m.Reason)
	}
}

// stopServing ends work for another node's job and returns its report.
func (n *Node) stopServing() (servingEnd, bool) {
	n.mu.Lock()
	s := n.serving
	n.serving = nil
	if s != nil {
		n.job = 0
		clear(n.lent)
		clear(n.borrowed)
	}
	n.mu.Unlock()
	if s == nil {
		return servingEnd{}, false
	}
	close(s.stop)
	return <-s.done, true
}

// endServing answers the root's jobEnd with this node's report and
// timeline.
func (n *Node) endServing(from sched.NodeID, job uint64) {
	n.mu.Lock()
	current := n.serving != nil && n.serving.job == job
	n.mu.Unlock()
	if !current {
		return
	}
	if end, ok := n.stopServing(); ok {
		n.sendReport(from, job, end)
	}
}

// sendReport sends this node's part in a job to the job's root.
func (n *Node) sendReport(root sched.NodeID, job uint64, end servingEnd) {
	payload, _ := json.Marshal(end.report)
	rep := &jobReport{Job: job, Report: payload, Timeline: end.timeline}
	addr, ok := n.peer(root)
	if !ok {
		n.log.Warn("the job's root is gone; the report is dropped", "root", root)
		return
	}
	if err := n.transmit(addr, rep, true); err != nil {
		n.log.Warn("could not report to the job's root", "root", root, "err", err)
	}
}

// servingEnd is what serving a job leaves: the node's report, and its
// timeline encoded (nil when it kept none).
type servingEnd struct {
	report   NodeReport
	timeline []byte
}

// setTimeline has the pool record a timeline of the next run, of at most
// capacity events per worker; none when capacity is 0.
func (n *Node) setTimeline(capacity int) {
	if capacity <= 0 {
		n.pool.SetTimeline(nil)
		return
	}
	n.pool.SetTimeline(sched.NewTimeline(capacity))
}
