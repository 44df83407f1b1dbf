package cluster

import (
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// answerSteal lends tasks to a fishing node, or refuses, as
// clusterpolicy.Answer decides for the simulator too.
func (l *lender) answerSteal(from clusterpolicy.NodeID, m *stealRequest) {
	reply := &stealReply{Job: m.Job, ID: m.ID}
	l.e.mu.Lock()
	port := l.e.pool.Port()
	lendable := 0
	if m.Lifeline {
		lendable = port.Lendable()
	}
	a := clusterpolicy.Answer(l.e.policy, time.Now(), from, int(m.Want), m.Lifeline, port.Load(), lendable)
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
