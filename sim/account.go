package sim

import "time"

// Where a node's time goes. A worker of a simulated node is at any moment
// running a task or not; the time it runs one is the task's own cost at
// the node's speed, and before it the CPU the node owes to the messages
// it sent and received since its last task (Model.Overhead each: the
// debt, which the next task pays). The time it runs none is split by
// what the node's policy waits for: an answer to a request for work it
// sent (stealing: the round trips of its thieves), or nothing it asked
// for (idle: backing off, waiting on lifelines, or the work is done
// elsewhere). So each worker-second of a run is working, handling
// messages, stealing or idle, and Result's shares say which, in sum 1:
// the next bottleneck at 128 or 1,024 nodes shows as the share that
// grows.

// account sums one node's time by what its workers did: the stretches
// the workers spent without a task, split by whether the node had a
// request for work in flight, and the message CPU its tasks paid.
type account struct {
	since   time.Duration // the last change of waiting or asked
	waiting int           // workers not running a task
	// asked counts the requests for work in flight to each node, so that
	// an answer is told from a push, which ends no request; a node with
	// none has no entry, so the node is asking while asked is not empty.
	asked    map[int]int
	stealing time.Duration // worker time without a task, a request in flight
	msgCPU   time.Duration // message CPU paid by the node's tasks
}

// advance adds the time since the last change to the stealing time, if
// workers waited with a request in flight.
func (a *account) advance(now time.Duration) {
	if a.waiting > 0 && len(a.asked) > 0 {
		a.stealing += time.Duration(a.waiting) * (now - a.since)
	}
	a.since = now
}

// working: a worker starts a task at now, whose first debt is message
// CPU.
func (a *account) working(now, debt time.Duration) {
	a.advance(now)
	a.waiting--
	a.msgCPU += debt
}

// free: a worker ends its task at now, or stops (its node died).
func (a *account) free(now time.Duration) {
	a.advance(now)
	a.waiting++
}

// ask: the node sent a request for work to node to at now.
func (a *account) ask(now time.Duration, to int) {
	a.advance(now)
	if a.asked == nil {
		a.asked = map[int]int{}
	}
	a.asked[to]++
}

// answered: a reply from node from came at now; it ends a request in
// flight to from, if any (else it is a push).
func (a *account) answered(now time.Duration, from int) {
	if a.asked[from] == 0 {
		return
	}
	a.advance(now)
	a.asked[from]--
	if a.asked[from] == 0 {
		delete(a.asked, from)
	}
}

// forget: node dead died at now; no answer will come from it.
func (a *account) forget(now time.Duration, dead int) {
	a.advance(now)
	delete(a.asked, dead)
}
