package sim

import (
	"time"

	"github.com/tsys-go/tsys/clusterpolicy"
)

// What an event is.
type eventKind uint8

const (
	evDone    eventKind = iota // a worker finished its task
	evWake                     // a parked worker is awake and looks for work
	evMessage                  // a message reached its node
	evTick                     // a node's policy hears the time
	evStart                    // the job's start reaches a node
	evFail                     // a node dies
	evDetect                   // the others notice
	evJoin                     // a node joins the cluster mid-run
	evDrain                    // a node starts to leave gracefully
	evForget                   // the others' policies hear a draining node is leaving
	evStatus                   // a status broadcast reaches the receivers it arrives at now
)

// event is one thing that happens at a virtual time; seq breaks ties in
// the order events were posted, which keeps a seeded run repeatable.
type event struct {
	at     time.Duration
	seq    uint64
	kind   eventKind
	node   int
	worker int
	msg    *message
}

// eventQueue is a min-heap of events by (at, seq).
type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return e
}

// What a message says, as package cluster's vocabulary does.
type messageKind uint8

const (
	msgRequest  messageKind = iota // a fishing request for want tasks
	msgReply                       // tasks lent (none: a refusal)
	msgResult                      // a lent group is done
	msgLoad                        // a load report
	msgHandBack                    // a leaving node's unstarted borrowed task, back to its lender
)

type message struct {
	kind  messageKind
	from  int
	want  int
	tasks []Task
	load  clusterpolicy.Load
	group int32
	// reach says which of a status broadcast's receivers its evStatus
	// event stands for (sim.broadcast).
	reach reach
}

// reach is the set of a status broadcast's receivers that one evStatus
// event delivers to: the sender's zone, the other zones, or everyone, as
// the message delays split them.
type reach uint8

const (
	reachAll reach = iota
	reachZone
	reachOthers
)
