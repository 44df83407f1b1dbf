package cluster

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/sched"
)

// borrower is the borrowing side of one job on this node: it asks peers
// for work (fish, a policy's Fish), takes in what they lend (borrow)
// into the job's borrowBook and its pool, and hands back what the node
// will not run as it leaves the job (handBack, handBackUnstarted). The
// results of what it borrowed go home from the workers (remote.Return).
//
// fishedAt and links are guarded by the engine's mu, under which the
// policy hears of each answer: a request's wait begins and ends under it,
// so that an answer cannot end a wait before it began. Called from the
// policy's actions (act), the inbox and the node's leaving; no lock is
// held while sending.
type borrower struct {
	e *engine
	// fishedAt is when the request in flight to each peer was sent, for
	// the round-trip counters.
	fishedAt map[clusterpolicy.NodeID]time.Time
	// links are what the job borrowed from each peer (links.go).
	links linkBook
	// unrunnable are the lenders that lent a task this node could not
	// run, which it says once each (their lender stops lending).
	unrunnable firsts
	// returnTimer is set while a timer will send the results held
	// (returns.go).
	returnTimer atomic.Bool
}

// fish asks node for up to count tasks (a policy's Fish action), or with
// lifeline sends it a lifeline (Lifeline): a request that waits there
// until node has tasks to give, which is neither timed as a round trip
// nor shown as a wait on the task stream, however long it takes.
func (b *borrower) fish(node clusterpolicy.NodeID, count int, lifeline bool) {
	if addr, ok := b.e.n.peers.addr(node); ok {
		if !lifeline {
			// Timed from before the send: the answer may come before Send
			// returns.
			b.e.mu.Lock()
			sent := time.Now()
			b.fishedAt[node] = sent
			// Under mu, so that an answer, which ends the wait under mu too,
			// cannot come before it begins.
			b.e.pool.Port().StreamWaitBegan(string(node), sent)
			b.e.mu.Unlock()
		}
		err := b.e.n.out.transmit(addr, &stealRequest{
			Job: b.e.info.ID, ID: b.e.n.nextID.Add(1), Want: int32(count), ReplyTo: b.e.n.trAddr, Lifeline: lifeline,
		}, false, b.e)
		switch {
		case err == nil && lifeline:
			b.e.lifelines.Add(1)
			return
		case err == nil:
			b.e.stealRequests.Add(1)
			return
		case !lifeline:
			b.e.mu.Lock()
			delete(b.fishedAt, node)
			b.e.pool.Port().StreamWaitEnded(string(node), time.Now())
			b.e.mu.Unlock()
		}
		b.e.n.log.Debug("fishing request not sent", "peer", node, "lifeline", lifeline, "err", err)
	}
	// Nothing went out: tell the policy the request is over.
	b.e.event(func(now time.Time) []clusterpolicy.Action { return b.e.policy.StealReply(now, node, 0) })
}

// stopWaiting ends, on the task stream, the waits of the requests still
// out: the job is over here, and no answer will reach its engine.
func (b *borrower) stopWaiting() {
	b.e.mu.Lock()
	defer b.e.mu.Unlock()
	now := time.Now()
	for node := range b.fishedAt {
		b.e.pool.Port().StreamWaitEnded(string(node), now)
	}
}

// borrow takes in the tasks of a StealReply.
func (b *borrower) borrow(from clusterpolicy.NodeID, m *stealReply) {
	b.e.mu.Lock()
	now := time.Now()
	sent, timed := b.fishedAt[from]
	if timed {
		delete(b.fishedAt, from)
		b.e.stealAnswers.Add(1)
		b.e.stealWait.Add(int64(now.Sub(sent)))
		b.e.pool.Port().StreamWaitEnded(string(from), now)
	}
	b.links.answered(from, len(m.Tasks), now.Sub(sent), timed)
	acts := b.e.policy.StealReply(now, from, len(m.Tasks))
	b.e.advise()
	b.e.mu.Unlock()
	var hs []*sched.Header
	leaving := b.e.leaving()
	for _, r := range m.Tasks {
		l := loan{node: from, id: r.ID, addr: m.ReplyTo, at: now}
		if leaving {
			b.handBack(l)
			continue
		}
		h, refusal := borrowedTask(b.e.n.name, r)
		if refusal != "" {
			if b.unrunnable.first(from) {
				b.e.n.netLog.Warn("a peer lent a task this node cannot run; is it running another binary? Its lender runs it, and lends no more", "peer", from, "task", r.Kind, "why", refusal)
			} else {
				b.e.n.log.Debug("a peer lent a task this node cannot run", "peer", from, "task", r.Kind, "why", refusal)
			}
			b.e.n.out.refuseTask(l, m.Job, refusal, b.e.n.netLog)
			continue
		}
		b.e.timeline.borrowed(from, r)
		b.e.borrowed.add(h, l)
		hs = append(hs, h)
	}
	if len(hs) > 0 {
		since := time.Since(b.e.began)
		b.e.firstWork.CompareAndSwap(0, int64(max(since, 1)))
		b.e.n.log.Debug("borrowed tasks", "peer", from, "tasks", len(hs), "since_job_began", since)
	}
	b.e.remoteSteals.Add(int64(len(hs)))
	b.e.tasksReceived.Add(int64(len(hs)))
	b.e.pool.Port().Inject(hs...)
	b.e.act(acts)
}

// handBackUnstarted returns to their lenders the borrowed tasks of e's job
// no worker has started. Tasks of the job's own that wait there (lent
// tasks taken back) stay.
func (b *borrower) handBackUnstarted() {
	var own []*sched.Header
	for _, h := range b.e.pool.Port().WithdrawInjected() {
		l, ok := b.e.borrowed.loanOf(h)
		if !ok {
			own = append(own, h)
			continue
		}
		// Held until handed back, as a result is until sent: a query
		// meanwhile must not hear it is gone.
		b.handBack(l)
		b.e.borrowed.settled(h)
	}
	b.e.pool.Port().Inject(own...)
}

// handBack tells task id's lender to run it itself: this node is leaving
// the job and never started it.
func (b *borrower) handBack(l loan) {
	b.e.handedBack.Add(1)
	m := &result{Job: b.e.info.ID, Task: l.id, Rerun: true, Leaving: true, Err: fmt.Sprintf("node %s is leaving the job", b.e.n.name)}
	if err := b.e.n.out.send(l.node, l.addr, m, b.e); err != nil {
		b.e.n.log.Warn("a task could not be handed back; its lender will run it when this node has left", "peer", l.node, "err", err)
	}
}
