package cluster

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/sched"
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

// jobTimeline is a job's timeline on this node: the pool's recorder, the
// arrows of the tasks lent and borrowed, and the peers' clocks against
// this node's. Its methods may be called from any goroutine: the pool's
// recorder is safe for concurrent use, and mu guards the offsets.
type jobTimeline struct {
	self clusterpolicy.NodeID
	pool *sched.Pool
	log  *slog.Logger

	mu      sync.Mutex
	offsets map[clusterpolicy.NodeID]time.Duration // peers' clocks against this one's
}

func newJobTimeline(self clusterpolicy.NodeID, pool *sched.Pool, log *slog.Logger) *jobTimeline {
	return &jobTimeline{self: self, pool: pool, log: log, offsets: map[clusterpolicy.NodeID]time.Duration{}}
}

// record has the pool record a timeline of the next run, of at most
// capacity events per worker; none when capacity is 0.
func (t *jobTimeline) record(capacity int) {
	if capacity <= 0 {
		t.pool.SetTimeline(nil)
		return
	}
	t.pool.SetTimeline(sched.NewTimeline(capacity))
}

// recording says whether the pool records a timeline.
func (t *jobTimeline) recording() bool { return t.pool.View().Timeline() != nil }

// capFor is the events per worker a node keeps for a root that asked for
// want: no more than its report can carry.
func (t *jobTimeline) capFor(want uint64) int {
	fit := maxPayload / 2 / timelineEventBytes / max(t.pool.Workers()+1, 1)
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
func (sv *server) answerClock(root clusterpolicy.NodeID, m *jobEnd, endAt int64) {
	e := sv.n.jobs.of(m.Job)
	if e == nil || e.rooted != nil || !e.timeline.recording() {
		return
	}
	r := &clockReading{Job: m.Job, EndSentAt: m.SentAt, EndAt: endAt, At: time.Now().UnixNano()}
	if err := sv.n.out.send(root, "", r, e); err != nil {
		sv.n.log.Warn("clock reading not sent; the timeline may be misaligned", "err", err)
	}
}

// clockArrived keeps a peer's clock offset for its timeline, which comes
// after it on the same connection.
func (t *jobTimeline) clockArrived(from clusterpolicy.NodeID, m *clockReading) {
	arrival := time.Now().UnixNano()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.offsets[from] = clockOffset(m, arrival)
}

// sent records a message on the timeline, if one records.
func (t *jobTimeline) sent(to string, m message, size int) {
	if tl := t.pool.View().Timeline(); tl != nil {
		tl.Note(sched.Note{Name: messageName(m), To: to, Bytes: size})
	}
}

// lendFlow names the arrow from a lend to its borrow: the lender's name
// and its id for the task, which both ends know.
func lendFlow(lender clusterpolicy.NodeID, id uint64) string {
	return string(lender) + "/" + strconv.FormatUint(id, 10)
}

// lent records tasks lent to node, each the start of an arrow.
func (t *jobTimeline) lent(to clusterpolicy.NodeID, recs []taskRecord) {
	tl := t.pool.View().Timeline()
	if tl == nil {
		return
	}
	for _, r := range recs {
		tl.Note(sched.Note{Name: "lent " + r.Kind, Flow: lendFlow(t.self, r.ID), Start: true, To: string(to)})
	}
}

// borrowed records a task borrowed from node, the end of its arrow.
func (t *jobTimeline) borrowed(from clusterpolicy.NodeID, r taskRecord) {
	if tl := t.pool.View().Timeline(); tl != nil {
		tl.Note(sched.Note{Name: "borrowed " + r.Kind, Flow: lendFlow(from, r.ID), From: string(from)})
	}
}

// encode is the node's timeline of the job, for its report; nil when it
// recorded none.
func (t *jobTimeline) encode() []byte {
	if !t.recording() {
		return nil
	}
	b, err := json.Marshal(t.pool.View().TimelineData(string(t.self)))
	if err != nil || len(b) > maxPayload {
		t.log.Warn("the timeline does not fit the report; it is left out", "bytes", len(b), "err", err)
		return nil
	}
	return b
}

// decode reads a peer's timeline from its report, with the offset its
// clock reading gave.
func (t *jobTimeline) decode(from clusterpolicy.NodeID, b []byte) (*NodeTimeline, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var d sched.TimelineData
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("a peer's timeline does not decode: %w", err)
	}
	t.mu.Lock()
	off, ok := t.offsets[from]
	t.mu.Unlock()
	if !ok {
		t.log.Warn("no clock reading came with a peer's timeline; taking its clock as this node's", "peer", from)
	}
	return &NodeTimeline{Data: d, Offset: off}, nil
}
