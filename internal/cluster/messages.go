package cluster

import (
	"fmt"
	"math"
	"time"

	"github.com/tsys-go/tsys/internal/buildinfo"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/transport"
	"github.com/tsys-go/tsys/internal/wire"
)

// The vocabulary nodes speak, carried by package transport as typed bodies.
// Each message has a field for each thing it says, and its own type: the
// transport frames them and knows none of them.
const (
	msgStealRequest transport.MsgType = transport.FirstUserType + iota // a thief asks for tasks
	msgStealReply                                                      // the lender's answer: tasks, or none (a refusal)
	msgResult                                                          // a lent task's result, an error, or a request to run it at home
	msgJobStart                                                        // a job begins: serve it
	msgJobEnd                                                          // the job is done: stop serving it and report
	msgJobReport                                                       // a node's counters for a job that ended
	msgJobFailed                                                       // a task of the job failed on the sender
	msgShutdown                                                        // the receiver is asked to stop
	msgLoadReport                                                      // the sender's load, for a balancing scheduler
	msgClock                                                           // clock readings that align a node's timeline with the root's
	msgDrain                                                           // the receiver is asked to leave gracefully (tsys drain)
	msgDrained                                                         // the answer: the sender has left, or why it could not
	msgStatsRequest                                                    // the receiver is asked for its state (a dashboard's view of the cluster)
	msgStatsReply                                                      // the answer: its Snapshot
	msgJobRefused                                                      // the sender will not serve the job, and why
	msgLeaving                                                         // the sender drains: take it off the schedulers' lists now
	msgJobPresence                                                     // the sender takes part in the job now, or no longer does
	msgLoanQuery                                                       // a lender asks a borrower which of its loans it holds
	msgLoanStatus                                                      // the answer: those it holds, those it does not
	msgJobAsk                                                          // a node that dropped a job asks its root whether the job still runs
	msgResults                                                         // several results of lent tasks, to one lender (package returns)
	msgEnd                                                             // one past the last: a new type goes before it
)

// numMessageTypes is how many types the vocabulary has.
const numMessageTypes = int(msgEnd - msgStealRequest)

// vocabulary is the table of the message types, in the order of their
// constants from msgStealRequest on: each type's name for people (a
// timeline's notes, a snapshot's counts), and the inbox's handler of one
// that arrives, by which inbox.handle dispatches. It is filled in init,
// as the handlers send messages, which are named from it; a row missing
// or one too many does not compile.
var vocabulary [numMessageTypes]word

func init() {
	vocabulary = [...]word{
		says("steal request", inbox.onStealRequest),
		says("steal reply", inbox.onStealReply),
		says("result", inbox.onResult),
		says("job start", inbox.onJobStart),
		says("job end", inbox.onJobEnd),
		says("job report", inbox.reportArrived),
		says("job failed", inbox.onJobFailed),
		says("shutdown", inbox.onShutdown),
		says("load report", inbox.onLoadReport),
		says("clock reading", inbox.onClockReading),
		says("drain", inbox.onDrain),
		says("drained", inbox.onDrained),
		says("stats request", inbox.answerStats),
		says("stats reply", inbox.statsArrived),
		says("job refused", inbox.refused),
		says("leaving", inbox.onLeaving),
		says("job presence", inbox.presenceArrived),
		says("loan query", inbox.onLoanQuery),
		says("loan status", inbox.onLoanStatus),
		says("job ask", inbox.onJobAsk),
		says("results", inbox.onResults),
	}
}

// Limits on what a message may hold, checked as it is decoded, so that a
// peer cannot make a node allocate without bound.
const (
	maxTasks     = 1 << 16  // tasks in one stealReply, loans in one loanQuery or loanStatus
	maxKinds     = 1 << 14  // task names a jobStart or jobRefused lists; a longer list is cut when sent
	maxStringLen = 1 << 10  // bytes of an address or a task name
	maxErrLen    = 4 << 10  // bytes of an error text; longer ones are cut when sent
	maxPayload   = 64 << 20 // bytes of an argument, a result or a report
	// maxTimelineCap bounds the events a root may ask each worker of a
	// node to keep (a node's memory: ~50 bytes an event).
	maxTimelineCap = 1 << 22
)

// message is one message of the vocabulary.
type message interface {
	msgType() transport.MsgType
	// fields walks the message's fields in the order they are sent
	// (wire.Codec): the one description of its bytes, from which it is
	// encoded and decoded, with what a decoder refuses.
	fields(c *wire.Codec)
}

// word is a row of vocabulary.
type word struct {
	name   string
	make   func() message // an empty message of the type
	handle func(n inbox, peer clusterpolicy.NodeID, m message)
}

// says makes the row of message type *M: its name, and handle, which the
// inbox calls with each that arrives.
func says[M any, P interface {
	*M
	message
}](name string, handle func(inbox, clusterpolicy.NodeID, P)) word {
	return word{
		name:   name,
		make:   func() message { return P(new(M)) },
		handle: func(n inbox, peer clusterpolicy.NodeID, m message) { handle(n, peer, m.(P)) },
	}
}

// stealRequest asks for up to Want tasks of Job. ReplyTo is the asker's
// transport address, for a lender whose gossip has not brought it yet.
// Lifeline makes it a lifeline (clusterpolicy.Lifeline): it waits at the
// lender until the lender has tasks to give; sent only when true.
type stealRequest struct {
	Job, ID  uint64
	Want     int32
	ReplyTo  string
	Lifeline bool
}

func (*stealRequest) msgType() transport.MsgType { return msgStealRequest }
func (m *stealRequest) replyAddr() *string       { return &m.ReplyTo }

func (m *stealRequest) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	c.Uvarint(&m.ID, "request id")
	c.Int32(&m.Want, "tasks wanted")
	c.String(&m.ReplyTo, "reply address", maxStringLen)
	if !c.More(m.Lifeline) {
		return
	}
	if c.Bool(&m.Lifeline, "lifeline flag"); !m.Lifeline {
		c.Fail("lifeline flag sent false") // sent only when true: one encoding a message
	}
}

// stealReply answers request ID with Tasks, none for a refusal; a
// deferred answer or a push carries ID 0. ReplyTo is the lender's
// transport address, where the results go: a node pushed to may not have
// heard of the lender through gossip yet.
type stealReply struct {
	Job, ID uint64
	Tasks   []taskRecord
	ReplyTo string
}

// taskRecord is one task lent: its id on the lender, its registered name,
// its encoded argument, and its ready clock on the critical path (0 unless
// the job measures work and span).
type taskRecord struct {
	ID   uint64
	Kind string
	Arg  []byte
	Span time.Duration
}

func (*stealReply) msgType() transport.MsgType { return msgStealReply }
func (m *stealReply) replyAddr() *string       { return &m.ReplyTo }

func (m *stealReply) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	c.Uvarint(&m.ID, "request id")
	kind := "" // tasks of one kind share one string
	// A task takes at least 4 bytes: id, name length, argument length,
	// span clock.
	tasks := wire.List(c, &m.Tasks, "tasks", maxTasks, 4)
	for i := range tasks {
		t := &tasks[i]
		c.Uvarint(&t.ID, "task id")
		c.SharedString(&t.Kind, &kind, "task name", maxStringLen)
		c.Bytes(&t.Arg, "task argument", maxPayload)
		c.Duration(&t.Span, "task span clock")
	}
	c.String(&m.ReplyTo, "reply address", maxStringLen)
}

// result returns task Task of Job: its encoded Value, or Err. With Rerun
// the borrower did not run it and the lender should run it itself: Leaving
// says the borrower is leaving the cluster, or does not serve the job
// (yet, or any more), and hands it back unstarted, which says nothing of
// whether it could run it; otherwise it could not run it (an unknown
// name, an argument that does not decode), and Err says why.
type result struct {
	Job, Task uint64
	Value     []byte
	Err       string
	Rerun     bool
	Leaving   bool
	Span      time.Duration // the task's finish clock on the critical path
}

func (*result) msgType() transport.MsgType { return msgResult }

func (m *result) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	m.item(c)
}

// item is a result's fields but its job's, which results shares.
func (m *result) item(c *wire.Codec) {
	c.Uvarint(&m.Task, "task id")
	c.Bytes(&m.Value, "result", maxPayload)
	c.Text(&m.Err, "error text", maxErrLen)
	c.Bool(&m.Rerun, "rerun flag")
	c.Bool(&m.Leaving, "leaving flag")
	c.Duration(&m.Span, "result span clock")
}

// results takes several results of Job home at once: those a borrower
// held for the same lender (package returns), in the order their tasks
// finished; each says what a result says. A borrower sends one alone as
// a result.
type results struct {
	Job     uint64
	Results []result // their Job is the message's
}

func (*results) msgType() transport.MsgType { return msgResults }

func (m *results) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	// A result takes at least 6 bytes: id, value length, error length,
	// two flags, span clock.
	rs := wire.List(c, &m.Results, "results", maxTasks, 6)
	for i := range rs {
		rs[i].item(c)
		rs[i].Job = m.Job
	}
}

// jobStart asks the receiver to serve Job, whose root node's transport
// address is ReplyTo.
type jobStart struct {
	Job             uint64
	ReplyTo         string
	MeasureWorkSpan bool
	TimelineCap     uint64 // record a timeline of at most this many events per worker; 0: none
	// Began is when the root began the job (Unix ns, its clock), which
	// orders the jobs a node shares itself between; MinNodes and MaxNodes
	// are the least and most nodes the job can use (0: 1, all).
	Began              int64
	MinNodes, MaxNodes uint32
	// Tasks are the names of the tasks that may cross nodes in the root's
	// binary (Binary names it): a node that lacks one refuses the job.
	Tasks  []string
	Binary string
	// Printed says the start carries the fingerprints below, as every
	// root since they were added sends; a start without them comes from
	// an older build, which a node refuses (binary.go).
	Printed bool
	// Prints are the fingerprints of Tasks' types, one each, in order;
	// Build is the root's build. A node whose own differ refuses the job,
	// unless only the build differs and AcceptBuilds (the root's
	// operator's word) or its own Config.AcceptBuilds allows it.
	Prints       []taskPrint
	Build        buildinfo.Build
	AcceptBuilds bool
}

// taskPrint is a task's types as a binary describes them
// (sched.Kind.Types): Hash, of the whole description, is what nodes
// compare; Types, cut to maxStringLen, is what a refusal shows.
type taskPrint struct {
	Types string
	Hash  uint64
}

func (*jobStart) msgType() transport.MsgType { return msgJobStart }
func (m *jobStart) replyAddr() *string       { return &m.ReplyTo }

func (m *jobStart) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	c.String(&m.ReplyTo, "reply address", maxStringLen)
	c.Bool(&m.MeasureWorkSpan, "work and span flag")
	if c.Uvarint(&m.TimelineCap, "timeline cap"); m.TimelineCap > maxTimelineCap {
		c.Fail("timeline cap %d over %d", m.TimelineCap, maxTimelineCap)
	}
	c.Varint(&m.Began, "began")
	c.Uint32(&m.MinNodes, "least nodes")
	c.Uint32(&m.MaxNodes, "most nodes")
	taskNames(c, &m.Tasks, "task names")
	c.Text(&m.Binary, "binary", maxStringLen)
	if !c.MoreFlag(&m.Printed) {
		return // an older root's start: no fingerprints
	}
	buildFields(c, &m.Build)
	c.Bool(&m.AcceptBuilds, "accept builds flag")
	// A fingerprint takes at least 2 bytes: its length and its hash.
	prints := wire.List(c, &m.Prints, "task fingerprints", maxKinds, 2)
	for i := range prints {
		c.Text(&prints[i].Types, "task types", maxStringLen)
		c.Uvarint(&prints[i].Hash, "task types hash")
	}
	if len(m.Prints) != len(m.Tasks) {
		c.Fail("%d task fingerprints for %d task names", len(m.Prints), len(m.Tasks))
	}
}

// buildFields walks a binary's build, each string cut to maxStringLen.
func buildFields(c *wire.Codec, b *buildinfo.Build) {
	c.Text(&b.Path, "module path", maxStringLen)
	c.Text(&b.Version, "module version", maxStringLen)
	c.Text(&b.Revision, "revision", maxStringLen)
	c.Bool(&b.Modified, "modified flag")
	c.Text(&b.Flags, "build flags", maxStringLen)
	c.Text(&b.ID, "build ID", maxStringLen)
	c.Text(&b.Go, "Go version", maxStringLen)
}

// taskNames walks a list of at most maxKinds task names; a longer one is
// cut when sent.
func taskNames(c *wire.Codec, names *[]string, what string) {
	list := wire.List(c, names, what, maxKinds, 1)
	for i := range list {
		c.String(&list[i], what, maxStringLen)
	}
}

// jobEnd tells the receiver that Job is done: it stops serving it and
// answers with a jobReport. SentAt is the root's wall clock (Unix ns) at
// sending, which the report echoes.
type jobEnd struct {
	Job    uint64
	SentAt int64
}

func (*jobEnd) msgType() transport.MsgType { return msgJobEnd }

func (m *jobEnd) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	c.Varint(&m.SentAt, "sent at")
}

// jobReport carries a node's counters for Job (a NodeReport as JSON) and
// its timeline (sched.TimelineData as JSON, when the job records one).
type jobReport struct {
	Job      uint64
	Report   []byte
	Timeline []byte
}

func (*jobReport) msgType() transport.MsgType { return msgJobReport }

func (m *jobReport) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	c.Bytes(&m.Report, "report", maxPayload)
	c.Bytes(&m.Timeline, "timeline", maxPayload)
}

// jobFailed tells the root that a task of Job failed on the sender.
type jobFailed struct {
	Job uint64
	Err string
}

func (*jobFailed) msgType() transport.MsgType { return msgJobFailed }

func (m *jobFailed) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	c.Text(&m.Err, "error text", maxErrLen)
}

// shutdown asks the receiver to stop. Sent by Dismiss, it says why the
// work the receiver served is over and how it ended: Status is the exit
// status its process takes (0: the work succeeded), Reason what a failure
// was.
type shutdown struct {
	Status uint8
	Reason string
}

func (*shutdown) msgType() transport.MsgType { return msgShutdown }
func (m *shutdown) fields(c *wire.Codec) {
	c.Uint8(&m.Status, "exit status")
	c.Text(&m.Reason, "reason", maxErrLen)
}

// loadReport tells the receiver the sender's load during Job. Counts past
// 2^31 and a rate that is not a finite number of at least 0 are refused:
// no node sends them.
type loadReport struct {
	Job  uint64
	Load clusterpolicy.Load
}

func (*loadReport) msgType() transport.MsgType { return msgLoadReport }

func (m *loadReport) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	wire.Natural(c, &m.Load.Ready, "ready count", math.MaxInt32)
	wire.Natural(c, &m.Load.Workers, "workers", math.MaxInt32)
	wire.Natural(c, &m.Load.Idle, "idle workers", math.MaxInt32)
	rate(c, &m.Load.Rate, "rate")
	rate(c, &m.Load.Busy, "busy rate")
	c.Duration(&m.Load.TaskTime, "task time")
}

// rate walks a float64 that must be finite and at least 0.
func rate(c *wire.Codec, r *float64, what string) {
	if c.Float64(r, what); math.IsNaN(*r) || math.IsInf(*r, 0) || *r < 0 {
		c.Fail("%s %v is not a finite number of at least 0", what, *r)
	}
}

// clockReading answers a jobEnd at once, when the job records a timeline,
// with what aligns the node's timeline with the root's (timeline.go): the
// jobEnd's SentAt echoed, and the node's wall clock when it arrived and
// when this left. It is small, so that both ways take about as long; the
// report, which may carry megabytes, follows.
type clockReading struct {
	Job                  uint64
	EndSentAt, EndAt, At int64
}

func (*clockReading) msgType() transport.MsgType { return msgClock }

func (m *clockReading) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	c.Varint(&m.EndSentAt, "job end sent at")
	c.Varint(&m.EndAt, "job end received at")
	c.Varint(&m.At, "clock reading sent at")
}

// drainRequest asks the receiver to leave the cluster gracefully
// (Node.Drain) within Timeout, and to answer with drained at ReplyTo.
type drainRequest struct {
	ReplyTo string
	Timeout time.Duration
}

func (*drainRequest) msgType() transport.MsgType { return msgDrain }
func (m *drainRequest) replyAddr() *string       { return &m.ReplyTo }

func (m *drainRequest) fields(c *wire.Codec) {
	c.String(&m.ReplyTo, "reply address", maxStringLen)
	c.Duration(&m.Timeout, "timeout")
}

// drained answers a drainRequest when the sender is about to leave: Err
// says why it could not, and stays; Returned and Finished count the
// borrowed tasks it handed back and those it ran to the end.
type drained struct {
	Err                string
	Returned, Finished int64
}

func (*drained) msgType() transport.MsgType { return msgDrained }

func (m *drained) fields(c *wire.Codec) {
	c.Text(&m.Err, "error text", maxErrLen)
	wire.Natural(c, &m.Returned, "tasks returned", math.MaxInt64)
	wire.Natural(c, &m.Finished, "tasks finished", math.MaxInt64)
}

// statsRequest asks for the receiver's Snapshot, or with All for every
// member's it can gather (tsys jobs), to be sent to ReplyTo with ID.
type statsRequest struct {
	ID      uint64
	ReplyTo string
	All     bool
	// Stream, when positive, asks for the task stream of the last Stream
	// too (Snapshot.Stream), drawn to StreamRes; sent only then, so that a
	// plain request is encoded as before.
	Stream, StreamRes time.Duration
}

func (*statsRequest) msgType() transport.MsgType { return msgStatsRequest }
func (m *statsRequest) replyAddr() *string       { return &m.ReplyTo }

func (m *statsRequest) fields(c *wire.Codec) {
	c.Uvarint(&m.ID, "request id")
	c.String(&m.ReplyTo, "reply address", maxStringLen)
	c.Bool(&m.All, "all flag")
	if !c.More(m.Stream > 0) {
		return
	}
	c.Duration(&m.Stream, "stream window")
	c.Duration(&m.StreamRes, "stream resolution")
	if m.Stream <= 0 || m.Stream > maxStreamWindow || m.StreamRes < minStreamRes {
		c.Fail("stream window %v at resolution %v: want a window within (0, %v] and a resolution of at least %v", m.Stream, m.StreamRes, maxStreamWindow, minStreamRes)
	}
}

// statsReply answers request ID with Snapshots, a JSON array.
type statsReply struct {
	ID        uint64
	Snapshots []byte
}

func (*statsReply) msgType() transport.MsgType { return msgStatsReply }

func (m *statsReply) fields(c *wire.Codec) {
	c.Uvarint(&m.ID, "request id")
	c.Bytes(&m.Snapshots, "snapshots", maxPayload)
}

// jobRefused tells a job's root that the sender will not serve it.
type jobRefused struct {
	Job    uint64
	Reason string
	// Lacks are the job's tasks the sender has not registered, or has
	// with other types: it runs another binary than the root.
	Lacks []string
	// OtherBuild says the sender runs another build of the root's
	// program (sent only when true, so an older node's refusal decodes).
	OtherBuild bool
}

func (*jobRefused) msgType() transport.MsgType { return msgJobRefused }

func (m *jobRefused) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	c.Text(&m.Reason, "reason", maxErrLen)
	taskNames(c, &m.Lacks, "missing task names")
	if !c.More(m.OtherBuild) {
		return
	}
	if c.Bool(&m.OtherBuild, "other build flag"); !m.OtherBuild {
		c.Fail("other build flag sent false") // sent only when true: one encoding a message
	}
}

// leaving tells the receiver that the sender has begun to drain: its
// policy should stop sending it work and requests now, though the sender
// is still a member, with results to send, until it leaves memberlist.
type leaving struct{}

func (*leaving) msgType() transport.MsgType { return msgLeaving }
func (*leaving) fields(*wire.Codec)         {}

// jobPresence tells the nodes of Job whether the sender takes part in it
// now, as its sharing policy says (package share): a node that does not
// takes none of the job's work, like a draining node.
type jobPresence struct {
	Job    uint64
	Active bool
}

func (*jobPresence) msgType() transport.MsgType { return msgJobPresence }

func (m *jobPresence) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	c.Bool(&m.Active, "active flag")
}

// loanQuery asks a borrower which of the loans IDs of Job, lent to it, it
// still holds; the answer goes to ReplyTo.
type loanQuery struct {
	Job     uint64
	IDs     []uint64
	ReplyTo string
}

func (*loanQuery) msgType() transport.MsgType { return msgLoanQuery }
func (m *loanQuery) replyAddr() *string       { return &m.ReplyTo }

func (m *loanQuery) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	loanIDs(c, &m.IDs, "loans")
	c.String(&m.ReplyTo, "reply address", maxStringLen)
}

// loanStatus answers a loanQuery: of the loans asked about, the sender
// holds Held and not Gone (their result was sent, or lost).
type loanStatus struct {
	Job        uint64
	Held, Gone []uint64
}

func (*loanStatus) msgType() transport.MsgType { return msgLoanStatus }

func (m *loanStatus) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	loanIDs(c, &m.Held, "loans held")
	loanIDs(c, &m.Gone, "loans gone")
}

// loanIDs walks a list of loan ids; a list longer than maxTasks is cut
// when sent, as no message asks about more.
func loanIDs(c *wire.Codec, ids *[]uint64, what string) {
	list := wire.List(c, ids, what, maxTasks, 1)
	for i := range list {
		c.Uvarint(&list[i], what)
	}
}

// jobAsk asks a job's root whether Job still runs, from a node that
// dropped it when gossip said the root had died: a root that is alive
// invites the node again. ReplyTo is the asker's transport address.
type jobAsk struct {
	Job     uint64
	ReplyTo string
}

func (*jobAsk) msgType() transport.MsgType { return msgJobAsk }
func (m *jobAsk) replyAddr() *string       { return &m.ReplyTo }

func (m *jobAsk) fields(c *wire.Codec) {
	c.Uvarint(&m.Job, "job")
	c.String(&m.ReplyTo, "reply address", maxStringLen)
}

// messageName names m's type.
func messageName(m message) string { return vocabulary[m.msgType()-msgStealRequest].name }

// encodeMessage makes the transport message of m. The encoder escapes
// to m's fields method, and so does the room it starts with, enough for
// most messages (a steal, a result, a load report): made with the
// message, neither costs an allocation of its own.
func encodeMessage(m message) *transport.Message {
	e := new(struct {
		tm   transport.Message
		c    wire.Codec
		room [64]byte
	})
	e.c = wire.Encoder(e.room[:0])
	m.fields(&e.c)
	e.tm = transport.Message{Type: m.msgType(), Body: e.c.Encoded()}
	return &e.tm
}

// decodeMessage reads a transport message of the vocabulary. Every byte of the
// body must belong to the message: a message of another build with more
// fields is refused rather than half understood.
func decodeMessage(tm *transport.Message) (message, error) {
	i := int(tm.Type) - int(msgStealRequest)
	if i < 0 || i >= len(vocabulary) {
		return nil, fmt.Errorf("%w: unknown message type %d", wire.ErrMalformed, tm.Type)
	}
	m := vocabulary[i].make()
	c := wire.DecoderOf(tm.Body)
	m.fields(&c)
	c.End("the message")
	if err := c.Err(); err != nil {
		return nil, fmt.Errorf("%T: %w", m, err)
	}
	return m, nil
}
