package cluster

import (
	"sync/atomic"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/transport"
)

// outbox is where every message of the node leaves: it finds the peer's
// address, encodes, counts the message by type for the node and, for a
// message of a job, on the job's engine, and hands it to the transport.
// Safe for concurrent use; it holds no lock while sending, and the
// transport's Send only queues.
type outbox struct {
	tr    *transport.Transport
	peers *peerBook
	// byType counts the messages and body bytes sent, by type, since the
	// node started (Snapshot).
	byType [numMessageTypes]struct{ messages, bytes atomic.Int64 }
}

// send sends m to node at its known transport address, or else at
// fallback, without waiting. job is the engine of the job m belongs to,
// nil for a message of no job (or of a job over here).
func (o *outbox) send(node clusterpolicy.NodeID, fallback string, m message, job *engine) error {
	addr, err := o.peers.addressOf(node, fallback)
	if err != nil {
		return err
	}
	return o.transmit(addr, m, false, job)
}

// transmit sends m to addr, waiting until it is written when sync is set.
func (o *outbox) transmit(addr string, m message, sync bool, job *engine) error {
	return o.transmitEncoded(addr, m, encodeMessage(m), sync, job)
}

// transmitEncoded is transmit of m already encoded as tm: a message to
// every peer is encoded once.
func (o *outbox) transmitEncoded(addr string, m message, tm *transport.Message, sync bool, job *engine) error {
	c := &o.byType[m.msgType()-msgStealRequest]
	c.messages.Add(1)
	c.bytes.Add(int64(len(tm.Body)))
	if job != nil {
		job.timeline.sent(addr, m, len(tm.Body))
		job.messagesSent.Add(1)
		job.bytesSent.Add(int64(messageBytes(tm)))
	}
	if sync {
		return o.tr.SendSync(addr, tm)
	}
	return o.tr.Send(addr, tm)
}

// refuseTask sends a borrowed task back to its lender to run at home,
// saying why, logging to log when it cannot.
func (o *outbox) refuseTask(l loan, job uint64, why string, log transport.LimitedLog) {
	o.sendBack(l, &result{Job: job, Task: l.id, Rerun: true, Err: why}, log)
}

// notServing sends a task lent for a job this node does not serve back
// to its lender unstarted, as a leaving node does: a push may come before
// the job's start, and the lender should not take it for a node that
// cannot run its tasks.
func (o *outbox) notServing(l loan, job uint64, log transport.LimitedLog) {
	o.sendBack(l, &result{Job: job, Task: l.id, Rerun: true, Leaving: true, Err: "the job is not served here"}, log)
}

func (o *outbox) sendBack(l loan, m *result, log transport.LimitedLog) {
	if err := o.send(l.node, l.addr, m, nil); err != nil {
		log.Warn("a task could not be sent back; its lender will re-run it if this node leaves", "peer", l.node, "err", err)
	}
}

// messageBytes is what a message counts for in a job's bytes_sent: its
// type and body, before framing and compression, which the transport
// does for every job's messages together.
func messageBytes(tm *transport.Message) int { return len(tm.Body) + 2 }
