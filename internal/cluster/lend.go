package cluster

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/sched"
)

// fish asks node for up to count tasks (a policy's Fish action), or with
// lifeline sends it a lifeline (Lifeline): a request that waits there
// until node has tasks to give, which is neither timed as a round trip
// nor shown as a wait on the task stream, however long it takes.
func (e *engine) fish(node clusterpolicy.NodeID, count int, lifeline bool) {
	if addr, ok := e.n.peers.addr(node); ok {
		if !lifeline {
			// Timed from before the send: the answer may come before Send
			// returns.
			e.mu.Lock()
			sent := time.Now()
			e.fishedAt[node] = sent
			// Under mu, so that an answer, which ends the wait under mu too,
			// cannot come before it begins.
			e.pool.StreamWaitBegan(string(node), sent)
			e.mu.Unlock()
		}
		err := e.n.out.transmit(addr, &stealRequest{
			Job: e.info.ID, ID: e.n.nextID.Add(1), Want: int32(count), ReplyTo: e.n.trAddr, Lifeline: lifeline,
		}, false, e)
		switch {
		case err == nil && lifeline:
			e.lifelines.Add(1)
			return
		case err == nil:
			e.stealRequests.Add(1)
			return
		case !lifeline:
			e.mu.Lock()
			delete(e.fishedAt, node)
			e.pool.StreamWaitEnded(string(node), time.Now())
			e.mu.Unlock()
		}
		e.n.log.Debug("fishing request not sent", "peer", node, "lifeline", lifeline, "err", err)
	}
	// Nothing went out: tell the policy the request is over.
	e.event(func(now time.Time) []clusterpolicy.Action { return e.policy.StealReply(now, node, 0) })
}

// stopWaiting ends, on the task stream, the waits of the requests still
// out: the job is over here, and no answer will reach its engine.
func (e *engine) stopWaiting() {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	for node := range e.fishedAt {
		e.pool.StreamWaitEnded(string(node), now)
	}
}

// answerSteal lends tasks to a fishing node, or refuses; a lifeline goes
// to a policy that holds them (clusterpolicy.LifelineHolder), and is
// refused by one that does not.
func (e *engine) answerSteal(from clusterpolicy.NodeID, m *stealRequest) {
	reply := &stealReply{Job: m.Job, ID: m.ID}
	e.mu.Lock()
	var a clusterpolicy.Action
	switch h, ok := e.policy.(clusterpolicy.LifelineHolder); {
	case !m.Lifeline:
		a = e.policy.StealRequest(time.Now(), from, int(m.Want), e.pool.Load())
	case ok:
		// Answered by what the node can lend: a borrowed task waiting in
		// the injected queue is not lent on, and a lifeline answered by
		// one would go back empty where it could have waited.
		self := e.pool.Load()
		self.Ready = e.pool.Lendable()
		a = h.LifelineRequest(time.Now(), from, int(m.Want), self)
	default:
		a = clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: from}
	}
	e.advise()
	switch {
	case a.Kind == clusterpolicy.Defer:
		e.mu.Unlock()
		return // answered from a later push, or refused on a tick
	case a.Kind == clusterpolicy.Give && a.Count > 0:
		reply.Tasks = e.lender.lend(from, m.ReplyTo, a.Count)
	}
	e.mu.Unlock()
	e.lender.send(from, m.ReplyTo, reply)
}

// push sends up to count tasks to node: a policy's Give outside the
// answer to a request just received (a deferred answer). It always sends
// one reply, with no task if none was left to lend, so that the asker's
// request is over either way.
func (e *engine) push(node clusterpolicy.NodeID, count int) {
	addr, _ := e.n.peers.addr(node)
	e.mu.Lock()
	recs := e.lender.lend(node, addr, count)
	e.mu.Unlock()
	e.lender.send(node, "", &stealReply{Job: e.info.ID, Tasks: recs})
}

// reportLoad sends this node's load to every peer (a policy's Report),
// counted as status traffic, apart from tasks.
func (e *engine) reportLoad() {
	e.mu.Lock()
	l := e.measured
	e.mu.Unlock()
	now := e.pool.Load()
	l.Ready, l.Idle = now.Ready, now.Idle
	m := &loadReport{Job: e.info.ID, Load: l}
	tm := encodeMessage(m)
	size := int64(messageBytes(tm))
	for id, addr := range e.n.peers.list() {
		if err := e.n.out.transmitEncoded(addr, m, tm, false, e); err != nil {
			e.n.log.Debug("load report not sent", "peer", id, "err", err)
			continue
		}
		e.statusSent.Add(1)
		e.statusBytes.Add(size)
	}
}

// refuse answers node's deferred request with no task.
func (e *engine) refuse(node clusterpolicy.NodeID) { e.push(node, 0) }

// borrow takes in the tasks of a StealReply.
func (e *engine) borrow(from clusterpolicy.NodeID, m *stealReply) {
	e.mu.Lock()
	now := time.Now()
	sent, timed := e.fishedAt[from]
	if timed {
		delete(e.fishedAt, from)
		e.stealAnswers.Add(1)
		e.stealWait.Add(int64(now.Sub(sent)))
		e.pool.StreamWaitEnded(string(from), now)
	}
	e.links.answered(from, len(m.Tasks), now.Sub(sent), timed)
	acts := e.policy.StealReply(now, from, len(m.Tasks))
	e.advise()
	e.mu.Unlock()
	var hs []*sched.Header
	leaving := e.leaving()
	for _, r := range m.Tasks {
		l := loan{node: from, id: r.ID, addr: m.ReplyTo}
		if leaving {
			e.handBack(l)
			continue
		}
		h, refusal := borrowedTask(e.n.name, r)
		if refusal != "" {
			if e.unrunnable.first(from) {
				e.n.netLog.Warn("a peer lent a task this node cannot run; is it running another binary? Its lender runs it, and lends no more", "peer", from, "task", r.Kind, "why", refusal)
			} else {
				e.n.log.Debug("a peer lent a task this node cannot run", "peer", from, "task", r.Kind, "why", refusal)
			}
			e.n.out.refuseTask(l, m.Job, refusal, e.n.netLog)
			continue
		}
		e.timeline.borrowed(from, r)
		e.borrowed.add(h, l)
		hs = append(hs, h)
	}
	if len(hs) > 0 {
		since := time.Since(e.began)
		e.firstWork.CompareAndSwap(0, int64(max(since, 1)))
		e.n.log.Debug("borrowed tasks", "peer", from, "tasks", len(hs), "since_job_began", since)
	}
	e.remoteSteals.Add(int64(len(hs)))
	e.tasksReceived.Add(int64(len(hs)))
	e.pool.Inject(hs...)
	e.act(acts)
}

// Return implements sched.Remote: send a borrowed task's result home.
func (e *engine) Return(h *sched.Header) {
	// The loan stays held until its result is on its way, so that an
	// answer to the lender's query never says it is gone before the
	// result goes ahead of that answer.
	loan, ok := e.borrowed.loanOf(h)
	if !ok {
		return // its job is over here
	}
	defer e.borrowed.settled(h)
	m := &result{Job: e.info.ID, Task: loan.id, Span: h.SpanClock()}
	value, err := resultBytes(h)
	if err != nil {
		m.Rerun, m.Err = true, fmt.Sprintf("node %s cannot encode the result of %q: %v", e.n.name, h.Kind().Name, err)
	} else {
		m.Value = value
	}
	// To the lender even when gossip no longer lists it: one that is
	// only slow waits for this result, and one that died has re-run the
	// task and drops it.
	if err := e.n.out.send(loan.node, loan.addr, m, e); err != nil {
		e.n.netLog.Warn("a result could not be sent; its lender re-runs the task if it is gone", "peer", loan.node, "err", err)
	}
}

// reportArrived collects a peer's end-of-job report, and its timeline.
func (n inbox) reportArrived(from clusterpolicy.NodeID, m *jobReport) {
	var r peerReport
	if err := json.Unmarshal(m.Report, &r.NodeReport); err != nil {
		n.netLog.Warn("a peer's job report does not decode", "peer", from, "err", err)
		return
	}
	e := n.jobs.of(m.Job)
	if e == nil || e.rooted == nil {
		n.log.Debug("a job report for no job of this node", "peer", from)
		return
	}
	tl, err := e.timeline.decode(from, m.Timeline)
	if err != nil {
		n.netLog.Warn("a peer's timeline is left out", "peer", from, "err", err)
	}
	r.timeline = tl
	e.mu.Lock()
	defer e.mu.Unlock()
	j := e.rooted
	j.reports[from] = r
	notify(j.reported)
}
