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
)

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
	// appendTo appends the body's encoding.
	appendTo(b []byte) []byte
	// decode reads the body; d's error says what was wrong.
	decode(d *wire.Decoder)
}

// stealRequest asks for up to Want tasks of Job. ReplyTo is the asker's
// transport address, for a lender whose gossip has not brought it yet.
type stealRequest struct {
	Job, ID uint64
	Want    int32
	ReplyTo string
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

// jobEnd tells the receiver that Job is done: it stops serving it and
// answers with a jobReport. SentAt is the root's wall clock (Unix ns) at
// sending, which the report echoes.
type jobEnd struct {
	Job    uint64
	SentAt int64
}

// jobReport carries a node's counters for Job (a NodeReport as JSON) and
// its timeline (sched.TimelineData as JSON, when the job records one).
type jobReport struct {
	Job      uint64
	Report   []byte
	Timeline []byte
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

// jobFailed tells the root that a task of Job failed on the sender.
type jobFailed struct {
	Job uint64
	Err string
}

// shutdown asks the receiver to stop. Sent by Dismiss, it says why the
// work the receiver served is over and how it ended: Status is the exit
// status its process takes (0: the work succeeded), Reason what a failure
// was.
type shutdown struct {
	Status uint8
	Reason string
}

// drainRequest asks the receiver to leave the cluster gracefully
// (Node.Drain) within Timeout, and to answer with drained at ReplyTo.
type drainRequest struct {
	ReplyTo string
	Timeout time.Duration
}

// drained answers a drainRequest when the sender is about to leave: Err
// says why it could not, and stays; Returned and Finished count the
// borrowed tasks it handed back and those it ran to the end.
type drained struct {
	Err                string
	Returned, Finished int64
}

// leaving tells the receiver that the sender has begun to drain: its
// policy should stop sending it work and requests now, though the sender
// is still a member, with results to send, until it leaves memberlist.
type leaving struct{}

// jobPresence tells the nodes of Job whether the sender takes part in it
// now, as its sharing policy says (package share): a node that does not
// takes none of the job's work, like a draining node.
type jobPresence struct {
	Job    uint64
	Active bool
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

// loanQuery asks a borrower which of the loans IDs of Job, lent to it, it
// still holds; the answer goes to ReplyTo.
type loanQuery struct {
	Job     uint64
	IDs     []uint64
	ReplyTo string
}

// loanStatus answers a loanQuery: of the loans asked about, the sender
// holds Held and not Gone (their result was sent, or lost).
type loanStatus struct {
	Job        uint64
	Held, Gone []uint64
}

// jobAsk asks a job's root whether Job still runs, from a node that
// dropped it when gossip said the root had died: a root that is alive
// invites the node again. ReplyTo is the asker's transport address.
type jobAsk struct {
	Job     uint64
	ReplyTo string
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

// statsReply answers request ID with Snapshots, a JSON array.
type statsReply struct {
	ID        uint64
	Snapshots []byte
}

// loadReport tells the receiver the sender's load during Job.
type loadReport struct {
	Job  uint64
	Load clusterpolicy.Load
}

func (*stealRequest) msgType() transport.MsgType { return msgStealRequest }
func (*stealReply) msgType() transport.MsgType   { return msgStealReply }
func (*clockReading) msgType() transport.MsgType { return msgClock }
func (*result) msgType() transport.MsgType       { return msgResult }
func (*jobStart) msgType() transport.MsgType     { return msgJobStart }
func (*jobEnd) msgType() transport.MsgType       { return msgJobEnd }
func (*jobReport) msgType() transport.MsgType    { return msgJobReport }
func (*jobFailed) msgType() transport.MsgType    { return msgJobFailed }
func (*shutdown) msgType() transport.MsgType     { return msgShutdown }
func (*loadReport) msgType() transport.MsgType   { return msgLoadReport }
func (*drainRequest) msgType() transport.MsgType { return msgDrain }
func (*drained) msgType() transport.MsgType      { return msgDrained }
func (*statsRequest) msgType() transport.MsgType { return msgStatsRequest }
func (*statsReply) msgType() transport.MsgType   { return msgStatsReply }
func (*jobRefused) msgType() transport.MsgType   { return msgJobRefused }
func (*leaving) msgType() transport.MsgType      { return msgLeaving }
func (*jobPresence) msgType() transport.MsgType  { return msgJobPresence }
func (*loanQuery) msgType() transport.MsgType    { return msgLoanQuery }
func (*loanStatus) msgType() transport.MsgType   { return msgLoanStatus }
func (*jobAsk) msgType() transport.MsgType       { return msgJobAsk }

func (m *loanQuery) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	b = appendIDs(b, m.IDs)
	return wire.AppendString(b, m.ReplyTo)
}

func (m *loanQuery) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.IDs = decodeIDs(d, "loans")
	m.ReplyTo = d.String("reply address", maxStringLen)
}

func (m *loanStatus) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	b = appendIDs(b, m.Held)
	return appendIDs(b, m.Gone)
}

func (m *loanStatus) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.Held = decodeIDs(d, "loans held")
	m.Gone = decodeIDs(d, "loans gone")
}

func (m *jobAsk) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	return wire.AppendString(b, m.ReplyTo)
}

func (m *jobAsk) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.ReplyTo = d.String("reply address", maxStringLen)
}

// appendIDs appends a list of loan ids; a list longer than maxTasks is
// cut, as no message asks about more.
func appendIDs(b []byte, ids []uint64) []byte {
	ids = ids[:min(len(ids), maxTasks)]
	b = wire.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		b = wire.AppendUvarint(b, id)
	}
	return b
}

// decodeIDs reads a list of loan ids; nil when empty, as sent.
func decodeIDs(d *wire.Decoder, what string) []uint64 {
	n := d.Count(what, maxTasks, 1)
	if n == 0 {
		return nil
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = d.Uvarint(what)
	}
	return ids
}

func (m *jobPresence) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	return wire.AppendBool(b, m.Active)
}

func (m *jobPresence) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.Active = d.Bool("active flag")
}

func (*leaving) appendTo(b []byte) []byte { return b }
func (*leaving) decode(*wire.Decoder)     {}

func (m *jobRefused) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	b = wire.AppendString(b, wire.TruncateUTF8(m.Reason, maxErrLen))
	b = appendStrings(b, m.Lacks[:min(len(m.Lacks), maxKinds)])
	if m.OtherBuild {
		b = wire.AppendBool(b, true)
	}
	return b
}

func (m *jobRefused) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.Reason = d.String("reason", maxErrLen)
	m.Lacks = decodeStrings(d, "missing task names")
	if d.Left() > 0 {
		if m.OtherBuild = d.Bool("other build flag"); !m.OtherBuild {
			d.Fail("other build flag sent false") // sent only when true: one encoding a message
		}
	}
}

func (m *statsRequest) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.ID)
	b = wire.AppendString(b, m.ReplyTo)
	b = wire.AppendBool(b, m.All)
	if m.Stream > 0 {
		b = wire.AppendDuration(b, m.Stream)
		b = wire.AppendDuration(b, m.StreamRes)
	}
	return b
}

func (m *statsRequest) decode(d *wire.Decoder) {
	m.ID = d.Uvarint("request id")
	m.ReplyTo = d.String("reply address", maxStringLen)
	m.All = d.Bool("all flag")
	if d.Left() > 0 {
		m.Stream = d.Duration("stream window")
		m.StreamRes = d.Duration("stream resolution")
		if d.Err() == nil && (m.Stream <= 0 || m.Stream > maxStreamWindow || m.StreamRes < minStreamRes) {
			d.Fail("stream window %v at resolution %v: want a window within (0, %v] and a resolution of at least %v", m.Stream, m.StreamRes, maxStreamWindow, minStreamRes)
		}
	}
}

func (m *statsReply) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.ID)
	return wire.AppendBytes(b, m.Snapshots)
}

func (m *statsReply) decode(d *wire.Decoder) {
	m.ID = d.Uvarint("request id")
	m.Snapshots = d.Bytes("snapshots", maxPayload)
}

func (m *drainRequest) appendTo(b []byte) []byte {
	b = wire.AppendString(b, m.ReplyTo)
	return wire.AppendDuration(b, m.Timeout)
}

func (m *drainRequest) decode(d *wire.Decoder) {
	m.ReplyTo = d.String("reply address", maxStringLen)
	m.Timeout = d.Duration("timeout")
}

func (m *drained) appendTo(b []byte) []byte {
	b = wire.AppendString(b, wire.TruncateUTF8(m.Err, maxErrLen))
	b = wire.AppendUvarint(b, uint64(m.Returned))
	return wire.AppendUvarint(b, uint64(m.Finished))
}

func (m *drained) decode(d *wire.Decoder) {
	m.Err = d.String("error text", maxErrLen)
	m.Returned = int64(min(d.Uvarint("tasks returned"), math.MaxInt64))
	m.Finished = int64(min(d.Uvarint("tasks finished"), math.MaxInt64))
}

func (m *stealRequest) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	b = wire.AppendUvarint(b, m.ID)
	b = wire.AppendVarint(b, int64(m.Want))
	return wire.AppendString(b, m.ReplyTo)
}

func (m *stealRequest) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.ID = d.Uvarint("request id")
	m.Want = d.Int32("tasks wanted")
	m.ReplyTo = d.String("reply address", maxStringLen)
}

func (m *stealReply) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	b = wire.AppendUvarint(b, m.ID)
	b = wire.AppendUvarint(b, uint64(len(m.Tasks)))
	for i := range m.Tasks {
		t := &m.Tasks[i]
		b = wire.AppendUvarint(b, t.ID)
		b = wire.AppendString(b, t.Kind)
		b = wire.AppendBytes(b, t.Arg)
		b = wire.AppendDuration(b, t.Span)
	}
	return wire.AppendString(b, m.ReplyTo)
}

func (m *stealReply) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.ID = d.Uvarint("request id")
	// A task takes at least 4 bytes: id, name length, argument length,
	// span clock.
	n := d.Count("tasks", maxTasks, 4)
	if n > 0 {
		m.Tasks = make([]taskRecord, 0, n)
	}
	prevKind := ""
	for range n {
		t := taskRecord{ID: d.Uvarint("task id")}
		// Tasks of one kind share one string.
		if k := d.Bytes("task name", maxStringLen); string(k) == prevKind {
			t.Kind = prevKind
		} else {
			t.Kind = string(k)
			prevKind = t.Kind
		}
		t.Arg = d.Bytes("task argument", maxPayload)
		t.Span = d.Duration("task span clock")
		m.Tasks = append(m.Tasks, t)
	}
	m.ReplyTo = d.String("reply address", maxStringLen)
}

func (m *result) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	b = wire.AppendUvarint(b, m.Task)
	b = wire.AppendBytes(b, m.Value)
	b = wire.AppendString(b, wire.TruncateUTF8(m.Err, maxErrLen))
	b = wire.AppendBool(b, m.Rerun)
	b = wire.AppendBool(b, m.Leaving)
	return wire.AppendDuration(b, m.Span)
}

func (m *result) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.Task = d.Uvarint("task id")
	m.Value = d.Bytes("result", maxPayload)
	m.Err = d.String("error text", maxErrLen)
	m.Rerun = d.Bool("rerun flag")
	m.Leaving = d.Bool("leaving flag")
	m.Span = d.Duration("result span clock")
}

func (m *jobStart) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	b = wire.AppendString(b, m.ReplyTo)
	b = wire.AppendBool(b, m.MeasureWorkSpan)
	b = wire.AppendUvarint(b, m.TimelineCap)
	b = wire.AppendVarint(b, m.Began)
	b = wire.AppendUvarint(b, uint64(m.MinNodes))
	b = wire.AppendUvarint(b, uint64(m.MaxNodes))
	b = appendStrings(b, m.Tasks[:min(len(m.Tasks), maxKinds)])
	b = wire.AppendString(b, wire.TruncateUTF8(m.Binary, maxStringLen))
	if !m.Printed {
		return b
	}
	b = appendBuild(b, m.Build)
	b = wire.AppendBool(b, m.AcceptBuilds)
	prints := m.Prints[:min(len(m.Prints), maxKinds)]
	b = wire.AppendUvarint(b, uint64(len(prints)))
	for _, p := range prints {
		b = wire.AppendString(b, wire.TruncateUTF8(p.Types, maxStringLen))
		b = wire.AppendUvarint(b, p.Hash)
	}
	return b
}

// appendBuild appends a binary's build, each string cut to
// maxStringLen.
func appendBuild(b []byte, bi buildinfo.Build) []byte {
	for _, s := range []string{bi.Path, bi.Version, bi.Revision} {
		b = wire.AppendString(b, wire.TruncateUTF8(s, maxStringLen))
	}
	b = wire.AppendBool(b, bi.Modified)
	for _, s := range []string{bi.Flags, bi.ID, bi.Go} {
		b = wire.AppendString(b, wire.TruncateUTF8(s, maxStringLen))
	}
	return b
}

func decodeBuild(d *wire.Decoder) buildinfo.Build {
	var bi buildinfo.Build
	bi.Path = d.String("module path", maxStringLen)
	bi.Version = d.String("module version", maxStringLen)
	bi.Revision = d.String("revision", maxStringLen)
	bi.Modified = d.Bool("modified flag")
	bi.Flags = d.String("build flags", maxStringLen)
	bi.ID = d.String("build ID", maxStringLen)
	bi.Go = d.String("Go version", maxStringLen)
	return bi
}

func appendStrings(b []byte, ss []string) []byte {
	b = wire.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = wire.AppendString(b, s)
	}
	return b
}

// decodeStrings reads a list of at most maxKinds task names.
func decodeStrings(d *wire.Decoder, what string) []string {
	n := d.Count(what, maxKinds, 1)
	var out []string
	for range n {
		out = append(out, d.String(what, maxStringLen))
	}
	return out
}

func (m *jobStart) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.ReplyTo = d.String("reply address", maxStringLen)
	m.MeasureWorkSpan = d.Bool("work and span flag")
	if m.TimelineCap = d.Uvarint("timeline cap"); m.TimelineCap > maxTimelineCap {
		d.Fail("timeline cap %d over %d", m.TimelineCap, maxTimelineCap)
	}
	m.Began = d.Varint("began")
	m.MinNodes = nodeCount(d, "least nodes")
	m.MaxNodes = nodeCount(d, "most nodes")
	m.Tasks = decodeStrings(d, "task names")
	m.Binary = d.String("binary", maxStringLen)
	if d.Left() == 0 {
		return // an older root's start: no fingerprints
	}
	m.Printed = true
	m.Build = decodeBuild(d)
	m.AcceptBuilds = d.Bool("accept builds flag")
	// A fingerprint takes at least 2 bytes: its length and its hash.
	n := d.Count("task fingerprints", maxKinds, 2)
	if n != len(m.Tasks) && d.Err() == nil {
		d.Fail("%d task fingerprints for %d task names", n, len(m.Tasks))
		return
	}
	for range n {
		m.Prints = append(m.Prints, taskPrint{Types: d.String("task types", maxStringLen), Hash: d.Uvarint("task types hash")})
	}
}

// nodeCount reads a count of nodes, which fits 32 bits.
func nodeCount(d *wire.Decoder, what string) uint32 {
	v := d.Uvarint(what)
	if v > math.MaxUint32 {
		d.Fail("%s %d over %d", what, v, uint64(math.MaxUint32))
	}
	return uint32(v)
}

func (m *jobEnd) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	return wire.AppendVarint(b, m.SentAt)
}

func (m *jobEnd) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.SentAt = d.Varint("sent at")
}

func (m *jobReport) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	b = wire.AppendBytes(b, m.Report)
	return wire.AppendBytes(b, m.Timeline)
}

func (m *jobReport) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.Report = d.Bytes("report", maxPayload)
	m.Timeline = d.Bytes("timeline", maxPayload)
}

func (m *clockReading) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	b = wire.AppendVarint(b, m.EndSentAt)
	b = wire.AppendVarint(b, m.EndAt)
	return wire.AppendVarint(b, m.At)
}

func (m *clockReading) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.EndSentAt = d.Varint("job end sent at")
	m.EndAt = d.Varint("job end received at")
	m.At = d.Varint("clock reading sent at")
}

func (m *jobFailed) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	return wire.AppendString(b, wire.TruncateUTF8(m.Err, maxErrLen))
}

func (m *jobFailed) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	m.Err = d.String("error text", maxErrLen)
}

func (m *shutdown) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, uint64(m.Status))
	return wire.AppendString(b, wire.TruncateUTF8(m.Reason, maxErrLen))
}

func (m *shutdown) decode(d *wire.Decoder) {
	if v := d.Uvarint("exit status"); v > 255 {
		d.Fail("exit status %d out of range", v)
	} else {
		m.Status = uint8(v)
	}
	m.Reason = d.String("reason", maxErrLen)
}

func (m *loadReport) appendTo(b []byte) []byte {
	b = wire.AppendUvarint(b, m.Job)
	b = wire.AppendUvarint(b, uint64(max(m.Load.Ready, 0)))
	b = wire.AppendUvarint(b, uint64(max(m.Load.Workers, 0)))
	b = wire.AppendUvarint(b, uint64(max(m.Load.Idle, 0)))
	b = wire.AppendUvarint(b, math.Float64bits(m.Load.Rate))
	b = wire.AppendUvarint(b, math.Float64bits(m.Load.Busy))
	return wire.AppendDuration(b, m.Load.TaskTime)
}

// decode reads a load; counts past 2^31 and a rate that is not a finite,
// non-negative number are refused: no node sends them.
func (m *loadReport) decode(d *wire.Decoder) {
	m.Job = d.Uvarint("job")
	count := func(what string) int {
		v := d.Uvarint(what)
		if v > math.MaxInt32 {
			d.Fail("%s %d out of range", what, v)
		}
		return int(v)
	}
	m.Load.Ready = count("ready count")
	m.Load.Workers = count("workers")
	m.Load.Idle = count("idle workers")
	m.Load.Rate = rate(d, "rate")
	m.Load.Busy = rate(d, "busy rate")
	m.Load.TaskTime = d.Duration("task time")
}

// rate reads a float64 that must be finite and at least 0.
func rate(d *wire.Decoder, what string) float64 {
	r := math.Float64frombits(d.Uvarint(what))
	if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 {
		d.Fail("%s %v is not a finite number of at least 0", what, r)
		return 0
	}
	return r
}

// vocabulary names each type of message, for people (timelines), and
// makes an empty one, in the order of the types from msgStealRequest on.
var vocabulary = [...]struct {
	name string
	make func() message
}{
	{"steal request", func() message { return new(stealRequest) }},
	{"steal reply", func() message { return new(stealReply) }},
	{"result", func() message { return new(result) }},
	{"job start", func() message { return new(jobStart) }},
	{"job end", func() message { return new(jobEnd) }},
	{"job report", func() message { return new(jobReport) }},
	{"job failed", func() message { return new(jobFailed) }},
	{"shutdown", func() message { return new(shutdown) }},
	{"load report", func() message { return new(loadReport) }},
	{"clock reading", func() message { return new(clockReading) }},
	{"drain", func() message { return new(drainRequest) }},
	{"drained", func() message { return new(drained) }},
	{"stats request", func() message { return new(statsRequest) }},
	{"stats reply", func() message { return new(statsReply) }},
	{"job refused", func() message { return new(jobRefused) }},
	{"leaving", func() message { return new(leaving) }},
	{"job presence", func() message { return new(jobPresence) }},
	{"loan query", func() message { return new(loanQuery) }},
	{"loan status", func() message { return new(loanStatus) }},
	{"job ask", func() message { return new(jobAsk) }},
}

// messageName names m's type.
func messageName(m message) string { return vocabulary[m.msgType()-msgStealRequest].name }

// encodeMessage makes the transport message of m.
func encodeMessage(m message) *transport.Message {
	return &transport.Message{Type: m.msgType(), Body: m.appendTo(nil)}
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
	d := wire.NewDecoder(tm.Body)
	m.decode(d)
	d.End("the message")
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("%T: %w", m, err)
	}
	return m, nil
}
