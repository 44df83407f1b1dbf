package sim

import (
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
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
	evReturn                   // a node's held results are due (package returns)
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

// eventQueue is a min-heap of events by (at, seq). It is written out for
// its one element type rather than through container/heap, whose
// interface calls for every comparison and swap are a good share of the
// simulator's time; (at, seq) orders events totally, so any correct heap
// pops them in the same order.
type eventQueue []*event

func (q eventQueue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

func (q *eventQueue) push(e *event) {
	*q = append(*q, e)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *eventQueue) pop() *event {
	h := *q
	e := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = nil
	h = h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.less(c+1, c) {
			c++
		}
		if !h.less(c, i) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	*q = h
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
	kind messageKind
	from int
	want int
	// lifeline: a request that waits until its node has work to give
	// (clusterpolicy.Lifeline).
	lifeline bool
	tasks    []Task
	load     clusterpolicy.Load
	// groups are the lent groups whose results a result message takes
	// home.
	groups []int32
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
