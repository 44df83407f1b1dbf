package sched

import (
	"fmt"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Remote is how a pool reaches other nodes: the cluster engine implements
// it. Its methods are called by the pool's workers, several at once; they
// must not block: they consult the policy's advice and queue work for the
// network. The other direction, the cluster's calls into the pool, is
// the pool's Port.
type Remote interface {
	// Hungry: a worker found no work at home (dry), called once per round
	// of fruitless local steal attempts, or took a borrowed task that
	// left fewer than the reserve (Port.SetReserve) while it still has
	// that one to run (not dry). It must cost little when there is
	// nothing to do (an atomic load of the policy's advice).
	Hungry(dry bool)
	// Pushed: a worker pushed a task while Port.SetWanted(true) holds. Called
	// on the spawn path: it must only signal.
	Pushed()
	// Return sends the result of a borrowed task to the node it came from.
	Return(h *Header)
	// Failed: the run failed here (a task's error or panic, the caller's
	// cancellation, Port.Fail), so that the other nodes of the job stop
	// starting its tasks now rather than when this node's running tasks
	// have returned. Called under the pool's lock: it must only queue.
	Failed(err error)
}

// ErrRemote wraps an error reported by another node.
type ErrRemote struct {
	Node clusterpolicy.NodeID
	Err  string
}

func (e *ErrRemote) Error() string { return fmt.Sprintf("node %s: %s", e.Node, e.Err) }
