package cluster

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/tsys-go/tsys/clusterpolicy"
	"github.com/tsys-go/tsys/sched"
)

// A job's timeline (tsys run --timeline on a cluster): every node records
// one, and sends it to the root with its report. The root aligns each
// node's clock with its own as NTP does, from the jobEnd and jobReport
// exchange: the node's clock runs ahead by about
//
//	((EndAt - EndSentAt) + (At - arrival)) / 2
//
// which is exact when both ways take as long; on one host the wall clocks
// agree anyway.

// NodeTimeline is one node's timeline of a job, with how far its clock
// runs ahead of the root's.
type NodeTimeline struct {
	Data   sched.TimelineData
	Offset time.Duration
}

// timelineEventBytes is about what one event takes encoded, to keep a
// node's timeline inside one report.
const timelineEventBytes = 80

// timelineCap is the events per worker a node keeps for a root that asked
// for want: no more than its report can carry.
func (e *engine) timelineCap(want uint64) int {
	fit := maxPayload / 2 / timelineEventBytes / max(e.pool.Workers()+1, 1)
	return int(min(want, uint64(fit)))
}

// clockOffset is how far the node's clock runs ahead of the root's, from
// the readings of one jobEnd and clockReading exchange, arrival being the
// root's clock when the reading came. The estimate is off by at most half
// the round trip; an offset within that is no offset anyone can tell, and
// is taken as none: on one host the wall clocks agree exactly, and the
// estimate's error would only tilt the arrows.
func clockOffset(m *clockReading, arrival int64) time.Duration {
	est := ((m.EndAt - m.EndSentAt) + (m.At - arrival)) / 2
	halfTrip := ((arrival - m.EndSentAt) - (m.At - m.EndAt)) / 2
	if est <= halfTrip && -est <= halfTrip {
		return 0
	}
	return time.Duration(est)
}

// answerClock sends the root the readings that align this node's timeline,
// at once on its jobEnd (which arrived at endAt).
func (n *Node) answerClock(root clusterpolicy.NodeID, m *jobEnd, endAt int64) {
	e := n.engineOf(m.Job)
	if e == nil || e.rooted != nil || e.pool.Timeline() == nil {
		return
	}
	r := &clockReading{Job: m.Job, EndSentAt: m.SentAt, EndAt: endAt, At: time.Now().UnixNano()}
	if err := e.send(root, "", r); err != nil {
		n.log.Warn("clock reading not sent; the timeline may be misaligned", "err", err)
	}
}

// clockArrived keeps a peer's clock offset for its timeline, which comes
// after it on the same connection.
func (e *engine) clockArrived(from clusterpolicy.NodeID, m *clockReading) {
	arrival := time.Now().UnixNano()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.offsets[from] = clockOffset(m, arrival)
}

// noteSent records a message on the job's timeline, if one records.
func (e *engine) noteSent(to string, m message, size int) {
	if tl := e.pool.Timeline(); tl != nil {
		tl.Note(sched.Note{Name: messageName(m), To: to, Bytes: size})
	}
}

// lendFlow names the arrow from a lend to its borrow: the lender's name
// and its id for the task, which both ends know.
func lendFlow(lender clusterpolicy.NodeID, id uint64) string {
	return string(lender) + "/" + strconv.FormatUint(id, 10)
}

// noteLent records tasks lent to node, each the start of an arrow.
func (e *engine) noteLent(to clusterpolicy.NodeID, recs []taskRecord) {
	tl := e.pool.Timeline()
	if tl == nil {
		return
	}
	for _, r := range recs {
		tl.Note(sched.Note{Name: "lent " + r.Kind, Flow: lendFlow(e.n.name, r.ID), Start: true, To: string(to)})
	}
}

// noteBorrowed records a task borrowed from node, the end of its arrow.
func (e *engine) noteBorrowed(from clusterpolicy.NodeID, r taskRecord) {
	if tl := e.pool.Timeline(); tl != nil {
		tl.Note(sched.Note{Name: "borrowed " + r.Kind, Flow: lendFlow(from, r.ID), From: string(from)})
	}
}

// encodeTimeline is the node's timeline of the job it served, for its
// report; nil when it recorded none.
func (e *engine) encodeTimeline() []byte {
	if e.pool.Timeline() == nil {
		return nil
	}
	b, err := json.Marshal(e.pool.TimelineData(string(e.n.name)))
	if err != nil || len(b) > maxPayload {
		e.n.log.Warn("the timeline does not fit the report; it is left out", "bytes", len(b), "err", err)
		return nil
	}
	return b
}

// decodeTimeline reads a peer's timeline from its report, with the
// offset its clock reading gave.
func (e *engine) decodeTimeline(from clusterpolicy.NodeID, b []byte) (*NodeTimeline, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var d sched.TimelineData
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("a peer's timeline does not decode: %w", err)
	}
	e.mu.Lock()
	off, ok := e.offsets[from]
	e.mu.Unlock()
	if !ok {
		e.n.log.Warn("no clock reading came with a peer's timeline; taking its clock as this node's", "peer", from)
	}
	return &NodeTimeline{Data: d, Offset: off}, nil
}
