package cluster

import (
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// answerSteal lends tasks to a fishing node, or refuses; a lifeline goes
// to a policy that holds them (clusterpolicy.LifelineHolder), and is
// refused by one that does not.
func (l *lender) answerSteal(from clusterpolicy.NodeID, m *stealRequest) {
	reply := &stealReply{Job: m.Job, ID: m.ID}
	l.e.mu.Lock()
	var a clusterpolicy.Action
	switch h, ok := l.e.policy.(clusterpolicy.LifelineHolder); {
	case !m.Lifeline:
		a = l.e.policy.StealRequest(time.Now(), from, int(m.Want), l.e.pool.Port().Load())
	case ok:
		// Answered by what the node can lend: a borrowed task waiting in
		// the injected queue is not lent on, and a lifeline answered by
		// one would go back empty where it could have waited.
		self := l.e.pool.Port().Load()
		self.Ready = l.e.pool.Port().Lendable()
		a = h.LifelineRequest(time.Now(), from, int(m.Want), self)
	default:
		a = clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: from}
	}
	l.e.advise()
	switch {
	case a.Kind == clusterpolicy.Defer:
		l.e.mu.Unlock()
		return // answered from a later push, or refused on a tick
	case a.Kind == clusterpolicy.Give && a.Count > 0:
		reply.Tasks = l.lend(from, m.ReplyTo, a.Count)
	}
	l.e.mu.Unlock()
	l.send(from, m.ReplyTo, reply)
}

// push sends up to count tasks to node: a policy's Give outside the
// answer to a request just received (a deferred answer). It always sends
// one reply, with no task if none was left to lend, so that the asker's
// request is over either way.
func (l *lender) push(node clusterpolicy.NodeID, count int) {
	addr, _ := l.e.n.peers.addr(node)
	l.e.mu.Lock()
	recs := l.lend(node, addr, count)
	l.e.mu.Unlock()
	l.send(node, "", &stealReply{Job: l.e.info.ID, Tasks: recs})
}

// refuse answers node's deferred request with no task.
func (l *lender) refuse(node clusterpolicy.NodeID) { l.push(node, 0) }
