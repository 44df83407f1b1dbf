package cluster

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tsys-go/tsys/net/transport"
	"github.com/tsys-go/tsys/sched"
)

// handle is the transport's handler: it runs on a connection's reader
// goroutine, so it only queues, never waits for work. A message that does
// not decode is dropped with a warning: it comes from another build or a
// broken peer, and nothing from the network may stop this node.
func (n *Node) handle(from string, tm *transport.Message) {
	peer := sched.NodeID(from)
	msg, err := decodeMessage(tm)
	if err != nil {
		n.log.Warn("dropping a message that does not decode", "peer", peer, "err", err)
		return
	}
	switch m := msg.(type) {
	case *stealRequest:
		n.answerSteal(peer, m)
	case *stealReply:
		n.borrow(peer, m)
	case *result:
		n.resultArrived(peer, m)
	case *jobStart:
		n.rememberPeer(peer, m.ReplyTo)
		n.startServing(peer, m.Job, JobOptions{MeasureWorkSpan: m.MeasureWorkSpan, TimelineCap: int(m.TimelineCap)})
	case *jobEnd:
		n.answerClock(peer, m, time.Now().UnixNano())
		go n.endServing(peer, m.Job)
	case *clockReading:
		n.clockArrived(peer, m)
	case *jobReport:
		n.reportArrived(peer, m)
	case *jobFailed:
		n.mu.Lock()
		ours := n.job == m.Job && n.rootOf == n.name
		n.mu.Unlock()
		if ours {
			n.pool.Fail(&sched.ErrRemote{Node: peer, Err: m.Err})
		}
	case *loadReport:
		n.mu.Lock()
		current := n.job != 0 && m.Job == n.job
		n.mu.Unlock()
		if current {
			n.event(func(now time.Time) []sched.Action { return n.policy.LoadReport(now, peer, m.Load) })
		}
	case *shutdown:
		n.requestShutdown()
	case *drainRequest:
		go n.drainFor(peer, m)
	case *leaving:
		// Its policy stops giving it work now; the lent records stay
		// until it has left memberlist, so its results still count.
		n.event(func(now time.Time) []sched.Action {
			return n.policy.Membership(now, sched.MemberEvent{Node: peer, Leaving: true})
		})
	case *jobRefused:
		n.refused(peer, m)
	case *statsRequest:
		n.answerStats(peer, m)
	case *statsReply:
		n.statsArrived(peer, m)
	case *drained:
		n.log.Warn("an answer to a drain request this node did not make", "peer", peer)
	}
}

// send sends m to node at its known transport address, or else at
// fallback.
func (n *Node) send(node sched.NodeID, fallback string, m message) error {
	addr := fallback
	if a, ok := n.peer(node); ok {
		addr = a
	}
	if addr == "" {
		return fmt.Errorf("node %s has no address for %s", n.name, node)
	}
	return n.transmit(addr, m, false)
}

// transmit sends m to addr, waiting until it is written when sync is set,
// and notes it on the node's timeline. Every message leaves through here.
func (n *Node) transmit(addr string, m message, sync bool) error {
	return n.transmitEncoded(addr, m, encodeMessage(m), sync)
}

// transmitEncoded is transmit of m already encoded as tm: a message to
// every peer is encoded once.
func (n *Node) transmitEncoded(addr string, m message, tm *transport.Message, sync bool) error {
	n.noteSent(addr, m, len(tm.Body))
	c := &n.sentByType[m.msgType()-msgStealRequest]
	c.messages.Add(1)
	c.bytes.Add(int64(len(tm.Body)))
	if sync {
		return n.tr.SendSync(addr, tm)
	}
	return n.tr.Send(addr, tm)
}

// rememberPeer learns a peer's transport address from a message, for a
// peer whose gossip has not arrived yet.
func (n *Node) rememberPeer(id sched.NodeID, addr string) {
	if addr == "" {
		return
	}
	n.peersMu.Lock()
	if _, ok := n.peers[id]; !ok && !n.left[id] {
		n.peers[id] = addr
	}
	n.peersMu.Unlock()
}

// fish asks node for up to count tasks (a policy's Fish action).
func (n *Node) fish(node sched.NodeID, count int) {
	n.mu.Lock()
	job := n.job
	n.mu.Unlock()
	addr, ok := n.peer(node)
	if job != 0 && ok {
		// Timed from before the send: the answer may come before Send
		// returns.
		n.mu.Lock()
		n.fishedAt[node] = time.Now()
		n.mu.Unlock()
		err := n.transmit(addr, &stealRequest{
			Job: job, ID: n.nextID.Add(1), Want: int32(count), ReplyTo: n.trAddr,
		}, false)
		if err == nil {
			n.stealRequests.Add(1)
			return
		}
		n.mu.Lock()
		delete(n.fishedAt, node)
		n.mu.Unlock()
		n.log.Debug("fishing request not sent", "peer", node, "err", err)
	}
	// Nothing went out: tell the policy the request is over.
	n.event(func(now time.Time) []sched.Action { return n.policy.StealReply(now, node, 0) })
}

// answerSteal lends tasks to a fishing node, or refuses.
func (n *Node) answerSteal(from sched.NodeID, m *stealRequest) {
	n.rememberPeer(from, m.ReplyTo)
	reply := &stealReply{Job: m.Job, ID: m.ID}
	n.mu.Lock()
	if m.Job == n.job && n.job != 0 {
		a := n.policy.StealRequest(time.Now(), from, int(m.Want), n.pool.Load().Ready)
		n.advise()
		switch {
		case a.Kind == sched.Defer:
			n.mu.Unlock()
			return // answered from a later push, or refused on a tick
		case a.Kind == sched.Give && a.Count > 0:
			reply.Tasks = n.lendLocked(from, m.Job, a.Count)
		}
	}
	n.mu.Unlock()
	n.sendTasks(from, m.ReplyTo, reply)
}

// push sends up to count tasks to node: a policy's Give outside the
// answer to a request just received (a deferred answer). It always sends
// one reply, with no task if none was left to lend, so that the asker's
// request is over either way.
func (n *Node) push(node sched.NodeID, count int) {
	n.mu.Lock()
	job := n.job
	var recs []taskRecord
	if job != 0 {
		recs = n.lendLocked(node, job, count)
	}
	n.mu.Unlock()
	if job != 0 {
		n.sendTasks(node, "", &stealReply{Job: job, Tasks: recs})
	}
}

// reportLoad sends this node's load to every peer in the current job (a
// policy's Report), counted as status traffic, apart from tasks.
func (n *Node) reportLoad() {
	n.mu.Lock()
	job, l := n.job, n.measured
	n.mu.Unlock()
	if job == 0 {
		return
	}
	now := n.pool.Load()
	l.Ready, l.Idle = now.Ready, now.Idle
	m := &loadReport{Job: job, Load: l}
	tm := encodeMessage(m)
	size := int64(len(tm.Body) + 2)
	for id, addr := range n.peerList() {
		if err := n.transmitEncoded(addr, m, tm, false); err != nil {
			n.log.Debug("load report not sent", "peer", id, "err", err)
			continue
		}
		n.statusSent.Add(1)
		n.statusBytes.Add(size)
	}
}

// refuse answers node's deferred request with no task.
func (n *Node) refuse(node sched.NodeID) { n.push(node, 0) }

// lendLocked takes up to count of the node's oldest ready tasks out of its
// deques and records them as lent to node. n.mu is held.
func (n *Node) lendLocked(to sched.NodeID, job uint64, count int) []taskRecord {
	var recs []taskRecord
	for _, h := range n.pool.Lend(count, lendable) {
		arg, err := h.Kind().EncodeArg(h)
		if err != nil {
			n.log.Warn("cannot encode a task's argument; keeping it", "task", h.Kind().Name, "err", err)
			n.pool.Inject(h)
			continue
		}
		id := n.nextID.Add(1)
		n.lent[id] = &lentTask{h: h, node: to, job: job}
		recs = append(recs, taskRecord{ID: id, Kind: h.Kind().Name, Arg: arg, Span: h.SpanClock()})
	}
	n.noteLent(to, recs)
	return recs
}

// sendTasks sends a reply carrying lent tasks (or none: a refusal) to
// node, at its known address or else at fallback; tasks that cannot be
// sent run here after all.
func (n *Node) sendTasks(to sched.NodeID, fallback string, m *stealReply) {
	n.tasksSent.Add(int64(len(m.Tasks)))
	m.ReplyTo = n.trAddr
	if err := n.send(to, fallback, m); err != nil && len(m.Tasks) > 0 {
		n.log.Warn("lent tasks not sent; running them here", "peer", to, "err", err)
		n.takeBack(m.Tasks)
	}
}

func lendable(h *sched.Header) bool { return h.Kind().EncodeArg != nil }

// takeBack runs lent tasks at home after all.
func (n *Node) takeBack(recs []taskRecord) {
	ids := make([]uint64, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	n.pool.Inject(n.reclaim(ids)...)
}

// reclaim ends the loans ids that are still open and returns their tasks,
// to run here.
func (n *Node) reclaim(ids []uint64) []*sched.Header {
	var back []*sched.Header
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, id := range ids {
		if lt, ok := n.lent[id]; ok {
			back = append(back, lt.h)
			delete(n.lent, id)
		}
	}
	return back
}

// borrow takes in the tasks of a StealReply.
func (n *Node) borrow(from sched.NodeID, m *stealReply) {
	n.rememberPeer(from, m.ReplyTo)
	n.mu.Lock()
	now := time.Now()
	if sent, ok := n.fishedAt[from]; ok {
		delete(n.fishedAt, from)
		n.stealAnswers.Add(1)
		n.stealWait.Add(int64(now.Sub(sent)))
	}
	current := m.Job == n.job
	acts := n.policy.StealReply(now, from, len(m.Tasks))
	n.advise()
	n.mu.Unlock()
	var hs []*sched.Header
	leaving := n.draining.Load()
	for _, r := range m.Tasks {
		if !current {
			n.refuseTask(from, m.Job, r.ID, "the job is over here")
			continue
		}
		if leaving {
			n.handBack(from, m.Job, r.ID)
			continue
		}
		kind, ok := sched.LookupKind(r.Kind)
		if !ok {
			n.log.Warn("a peer lent a task of an unknown kind; is it running another binary?", "peer", from, "task", r.Kind)
			n.refuseTask(from, m.Job, r.ID, fmt.Sprintf("node %s has no task named %q", n.name, r.Kind))
			continue
		}
		if kind.NewFromArg == nil {
			n.refuseTask(from, m.Job, r.ID, fmt.Sprintf("task %q cannot cross nodes", r.Kind))
			continue
		}
		h, err := kind.NewFromArg(r.Arg)
		if err != nil {
			n.log.Warn("a lent task's argument does not decode", "peer", from, "err", err)
			n.refuseTask(from, m.Job, r.ID, err.Error())
			continue
		}
		h.MarkBorrowed()
		h.SetSpanClock(r.Span)
		n.noteBorrowed(from, r)
		n.mu.Lock()
		n.borrowed[h] = loan{node: from, job: m.Job, id: r.ID}
		n.mu.Unlock()
		hs = append(hs, h)
	}
	if len(hs) > 0 {
		n.mu.Lock()
		since := time.Since(n.jobBegan)
		n.mu.Unlock()
		n.firstWork.CompareAndSwap(0, int64(max(since, 1)))
		n.log.Debug("borrowed tasks", "peer", from, "tasks", len(hs), "since_job_began", since)
	}
	n.remoteSteals.Add(int64(len(hs)))
	n.tasksReceived.Add(int64(len(hs)))
	n.pool.Inject(hs...)
	n.act(acts)
}

// refuseTask sends a borrowed task back to its lender to run at home.
func (n *Node) refuseTask(to sched.NodeID, job, id uint64, why string) {
	if err := n.send(to, "", &result{Job: job, Task: id, Rerun: true, Err: why}); err != nil {
		n.log.Warn("a task could not be sent back; its lender will re-run it if this node leaves", "peer", to, "err", err)
	}
}

// Return implements sched.Remote: send a borrowed task's result home.
func (n *Node) Return(h *sched.Header) {
	n.mu.Lock()
	loan, ok := n.borrowed[h]
	delete(n.borrowed, h)
	n.mu.Unlock()
	if !ok {
		return // its job is over here
	}
	m := &result{Job: loan.job, Task: loan.id, Span: h.SpanClock()}
	value, err := h.Kind().EncodeResult(h)
	if err != nil {
		m.Rerun, m.Err = true, fmt.Sprintf("node %s cannot encode the result of %q: %v", n.name, h.Kind().Name, err)
	} else {
		m.Value = value
	}
	if _, ok := n.peer(loan.node); !ok {
		n.log.Warn("the lender of a task is gone; its result is dropped", "peer", loan.node)
		return
	}
	if err := n.send(loan.node, "", m); err != nil {
		n.log.Warn("a result could not be sent", "peer", loan.node, "err", err)
	}
}

// resultArrived completes a lent task with the result its borrower sent.
func (n *Node) resultArrived(from sched.NodeID, m *result) {
	n.mu.Lock()
	lt, ok := n.lent[m.Task]
	if ok && lt.node == from && lt.job == m.Job {
		delete(n.lent, m.Task)
	} else {
		ok = false
	}
	n.mu.Unlock()
	if !ok {
		n.log.Debug("a result for no task lent to that peer", "peer", from, "id", m.Task)
		return
	}
	h := lt.h
	switch {
	case m.Rerun && m.Leaving:
		n.log.Debug("a leaving node handed a task back; running it here", "peer", from)
		n.tasksReturned.Add(1)
		n.pool.Inject(h)
	case m.Rerun:
		n.log.Warn("the borrower could not run a task; running it here", "peer", from, "why", m.Err)
		n.tasksReturned.Add(1)
		n.pool.Inject(h)
	case m.Err != "":
		n.pool.Fail(&sched.ErrRemote{Node: from, Err: m.Err})
	default:
		if err := h.Kind().DecodeResult(h, m.Value); err != nil {
			n.log.Warn("a result does not decode; running the task here", "peer", from, "err", err)
			n.pool.Inject(h)
			return
		}
		h.SetSpanClock(m.Span)
		n.pool.Complete(h)
	}
}

// reportArrived collects a peer's end-of-job report, and its timeline.
func (n *Node) reportArrived(from sched.NodeID, m *jobReport) {
	var r peerReport
	if err := json.Unmarshal(m.Report, &r.NodeReport); err != nil {
		n.log.Warn("a peer's job report does not decode", "peer", from, "err", err)
		return
	}
	tl, err := n.decodeTimeline(from, m.Timeline)
	if err != nil {
		n.log.Warn("a peer's timeline is left out", "peer", from, "err", err)
	}
	r.timeline = tl
	n.mu.Lock()
	defer n.mu.Unlock()
	j := n.rooted
	if j == nil || j.ID != m.Job {
		n.log.Debug("a job report for no job of this node", "peer", from)
		return
	}
	j.reports[from] = r
	notify(j.reported)
}
