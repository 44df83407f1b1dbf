package cluster

import (
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/transport"
	"github.com/tsys-go/tsys/internal/sched"
)

// inbox is what the node does on the word of others over the transport:
// its handler (handle), and one handler for each message type of the
// vocabulary (messages.go), which handle calls. Its methods run on a
// connection's reader goroutine, so they only queue, answer from what is
// at hand, or start a goroutine; none waits for work. A handler whose
// work is more than a line or two hands it to the part it is of (the
// job's engine, the server, the orphans). Gossip's word goes to
// gossipInbox; what the node's own user calls is on Node.
type inbox struct{ n *Node }

// handle is the transport's handler: it runs on a connection's reader
// goroutine, so it only queues, never waits for work. A message that does
// not decode is dropped with a warning: it comes from another build or a
// broken peer, and nothing from the network may stop this node. Each type
// of message has its handler, named in its row of vocabulary
// (messages.go), which handle calls. A message of a job goes to the job's
// engine; one of a job this node does not serve gets the answer that
// costs nothing: no task, or the task back.
func (in inbox) handle(from string, tm *transport.Message) {
	peer := clusterpolicy.NodeID(from)
	msg, err := decodeMessage(tm)
	if err != nil {
		in.n.netLog.Warn("dropping a message that does not decode", "peer", peer, "err", err)
		return
	}
	in.n.words.heard(peer, time.Now()) // it is there (silence.go)
	in.trustReplyTo(peer, msg, tm)
	// A message of a job (its end, a task, a query) may end a doze: rouse
	// once it has taken effect, so that a tick that looks at the node
	// after the rouse sees it.
	defer in.n.tick.rouse()
	vocabulary[msg.msgType()-msgStealRequest].handle(in, peer, msg)
}

// The handlers of the messages whose work is no more than a line or two
// here; the others' are where their work is (vocabulary names each).

func (in inbox) onStealRequest(peer clusterpolicy.NodeID, m *stealRequest) {
	in.n.peers.learn(peer, m.ReplyTo)
	if e := in.n.jobs.of(m.Job); e != nil {
		e.lender.answerSteal(peer, m)
	} else {
		in.n.out.send(peer, m.ReplyTo, &stealReply{Job: m.Job, ID: m.ID, ReplyTo: in.n.trAddr}, nil)
	}
}

func (in inbox) onStealReply(peer clusterpolicy.NodeID, m *stealReply) {
	in.n.peers.learn(peer, m.ReplyTo)
	if e := in.n.jobs.of(m.Job); e != nil {
		e.borrower.borrow(peer, m)
		return
	}
	for _, r := range m.Tasks {
		in.n.out.notServing(loan{node: peer, id: r.ID, addr: m.ReplyTo}, m.Job, in.n.netLog)
	}
}

func (in inbox) onResult(peer clusterpolicy.NodeID, m *result) {
	if e := in.n.jobs.of(m.Job); e != nil {
		e.lender.resultArrived(peer, m)
	} else {
		in.n.log.Debug("a result for a job that is over here", "peer", peer, "id", m.Task)
	}
}

// onResults settles each result a batch carries; a batch for a job that
// is over here is one line, however many results it holds.
func (in inbox) onResults(peer clusterpolicy.NodeID, m *results) {
	e := in.n.jobs.of(m.Job)
	if e == nil {
		in.n.log.Debug("results for a job that is over here", "peer", peer, "results", len(m.Results))
		return
	}
	for i := range m.Results {
		e.lender.resultArrived(peer, &m.Results[i])
	}
}

func (in inbox) onJobStart(peer clusterpolicy.NodeID, m *jobStart) {
	in.n.peers.learn(peer, m.ReplyTo)
	in.n.server.startServing(peer, m)
}

func (in inbox) onJobEnd(peer clusterpolicy.NodeID, m *jobEnd) {
	in.n.server.answerClock(peer, m, time.Now().UnixNano())
	go in.n.server.endServing(peer, m.Job)
}

func (in inbox) onClockReading(peer clusterpolicy.NodeID, m *clockReading) {
	if e := in.n.jobs.of(m.Job); e != nil {
		e.timeline.clockArrived(peer, m)
	}
}

func (in inbox) onJobFailed(peer clusterpolicy.NodeID, m *jobFailed) {
	switch e := in.n.jobs.of(m.Job); {
	case e == nil:
	case e.rooted != nil:
		e.pool.Port().Fail(&sched.ErrRemote{Node: peer, Err: m.Err})
	case peer == clusterpolicy.NodeID(e.info.Root):
		// The job failed elsewhere: stop starting its tasks here too.
		err := &failedAtRoot{sched.ErrRemote{Node: peer, Err: m.Err}}
		e.pool.Port().Fail(err)
		// A run that has not begun yet drops Fail: its context fails
		// it as it begins.
		if e.failServing != nil {
			e.failServing(err)
		}
	}
}

func (in inbox) onLoadReport(peer clusterpolicy.NodeID, m *loadReport) {
	if e := in.n.jobs.of(m.Job); e != nil {
		e.event(func(now time.Time) []clusterpolicy.Action { return e.policy.LoadReport(now, peer, m.Load) })
	}
}

func (in inbox) onLoanStatus(peer clusterpolicy.NodeID, m *loanStatus) {
	if e := in.n.jobs.of(m.Job); e != nil {
		e.lender.heard(peer, m)
	}
}

func (in inbox) onShutdown(_ clusterpolicy.NodeID, m *shutdown) {
	in.n.dismissed.CompareAndSwap(nil, m)
	in.n.requestShutdown()
}

func (in inbox) onDrain(peer clusterpolicy.NodeID, m *drainRequest) {
	go in.n.drainer.drainFor(peer, m)
}

// onLeaving: its policies stop giving it work now; the lent records stay
// until it has left memberlist, so its results still count.
func (in inbox) onLeaving(peer clusterpolicy.NodeID, _ *leaving) {
	for _, e := range in.n.jobs.list() {
		e.event(func(now time.Time) []clusterpolicy.Action {
			return e.policy.Membership(now, clusterpolicy.MemberEvent{Node: peer, Leaving: true})
		})
	}
}

func (in inbox) onDrained(peer clusterpolicy.NodeID, _ *drained) {
	in.n.netLog.Warn("an answer to a drain request this node did not make", "peer", peer)
}
