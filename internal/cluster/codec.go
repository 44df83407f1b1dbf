package cluster

import (
	"fmt"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/sched"
)

// The bytes of a task that crosses nodes are made and read here, and only
// here, through the codec its kind carries (sched.Codec): the argument on
// the way out (lentRecord) and in (borrowedTask), the result on the way
// back (resultBytes, completeWith).

// lendable says whether h's task may be lent: its kind has a codec.
func lendable(h *sched.Header) bool { return h.Kind().Lendable() }

// lentRecord is task h lent as loan id: its kind's name and its argument's
// bytes.
func lentRecord(id uint64, h *sched.Header) (taskRecord, error) {
	arg, err := h.Kind().Codec.EncodeArg(h)
	if err != nil {
		return taskRecord{}, err
	}
	return taskRecord{ID: id, Kind: h.Kind().Name, Arg: arg, Span: h.SpanClock()}, nil
}

// borrowedTask makes the task a peer lent, on node self, from its record;
// refusal says why it cannot run here (the lender runs it itself).
func borrowedTask(self clusterpolicy.NodeID, r taskRecord) (h *sched.Header, refusal string) {
	kind, ok := sched.LookupKind(r.Kind)
	if !ok {
		return nil, fmt.Sprintf("node %s has no task named %q", self, r.Kind)
	}
	if !kind.Lendable() {
		return nil, fmt.Sprintf("task %q cannot cross nodes", r.Kind)
	}
	h, err := kind.Codec.NewFromArg(r.Arg)
	if err != nil {
		return nil, err.Error()
	}
	h.MarkBorrowed()
	h.SetSpanClock(r.Span)
	return h, ""
}

// resultBytes is the result of borrowed task h, done, for its lender.
func resultBytes(h *sched.Header) ([]byte, error) { return h.Kind().Codec.EncodeResult(h) }

// completeWith stores in lent task h the result its borrower sent.
func completeWith(h *sched.Header, value []byte) error {
	return h.Kind().Codec.DecodeResult(h, value)
}
