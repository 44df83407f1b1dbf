package cluster

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tsys-go/tsys/internal/sched"
)

// remote is the engine as its pool's workers call it: the pool's
// sched.Remote (Port.SetRemote). A worker found no work (Hungry), made a
// task ready that a request waits for (Pushed), finished a borrowed task
// (Return), or the run failed (Failed). Its methods run on the workers'
// goroutines, Failed under the pool's lock: each reads an atomic, signals
// the tick, sends, or starts a goroutine, and takes the engine's mu only
// for an event the policy must hear (Hungry) or off the worker's
// goroutine (Failed's sends).
type remote struct{ e *engine }

// Hungry implements sched.Remote: a worker found no work at home. The
// policy hears of it only when its advice says it could act on it.
func (r remote) Hungry(dry bool) {
	// A worker has run out of work: no result waits for others any more.
	if dry {
		if bs := r.e.borrowed.idle(time.Now()); bs != nil {
			r.e.borrower.sendResults(bs)
		}
	}
	if r.e.leaving() {
		return
	}
	if g := r.e.hungryAfter.Load(); g == math.MaxInt64 || (g != 0 && time.Now().UnixNano() < g) {
		// The policy would not act on it now, but a tick dozing while
		// every worker was at work must look again: the node is at work
		// no longer (idletick.go).
		r.e.n.tick.rouse()
		return
	}
	r.e.event(r.e.policy.Hungry)
}

// Failed implements sched.Remote: the job failed on this node. The root
// tells every node serving the job, a serving node tells the root (which
// tells the rest), so that no node starts the job's tasks for longer than
// a message takes; a failure that a root's word caused here goes back to
// nobody. Called under the pool's lock, so the sends go on their own
// goroutine.
func (r remote) Failed(err error) {
	if r.e.rooted == nil && errors.As(err, new(*failedAtRoot)) {
		return
	}
	m := &jobFailed{Job: r.e.info.ID, Err: err.Error()}
	go func() {
		for _, addr := range r.failureRecipients() {
			if err := r.e.n.out.transmit(addr, m, false, r.e); err != nil {
				r.e.n.log.Debug("could not tell a node the job failed", "addr", addr, "err", err)
			}
		}
	}()
}

// failureRecipients are the nodes to tell of a failure here: a root's
// peers, or a serving node's root.
func (r remote) failureRecipients() []string {
	var to []string
	if j := r.e.rooted; j != nil {
		r.e.mu.Lock()
		for _, addr := range j.peers {
			to = append(to, addr)
		}
		r.e.mu.Unlock()
	} else if addr, err := r.e.n.peers.addressOf(r.e.root(), r.e.rootWatch.addr); err == nil {
		to = append(to, addr)
	}
	return to
}

// failedAtRoot is what fails a serving node's run when the job's root says
// the job failed: a *sched.ErrRemote naming the root, which Failed does
// not echo back.
type failedAtRoot struct{ sched.ErrRemote }

func (e *failedAtRoot) Unwrap() error { return &e.ErrRemote }

// Pushed implements sched.Remote: a worker made a task ready while a
// request waits for one. It only signals the tick goroutine, which asks the
// policy: the worker goes on spawning.
func (r remote) Pushed() {
	r.e.pushed.Store(true)
	select {
	case r.e.n.tick.pushed <- struct{}{}:
	default:
	}
}

// Return implements sched.Remote: send a borrowed task's result home.
func (r remote) Return(h *sched.Header) {
	// The loan stays held until its result is on its way, so that an
	// answer to the lender's query never says it is gone before the
	// result goes ahead of that answer.
	loan, ok := r.e.borrowed.loanOf(h)
	if !ok {
		// A backup of a task this node lent (backup.go), or a task of
		// a job over here.
		r.e.lender.backupReturned(h)
		return
	}
	m := &result{Job: r.e.info.ID, Task: loan.id, Span: h.SpanClock()}
	value, err := resultBytes(h)
	if err != nil {
		m.Rerun, m.Err = true, fmt.Sprintf("node %s cannot encode the result of %q: %v", r.e.n.name, h.Kind().Name, err)
	} else {
		m.Value = value
	}
	// It may wait for others to the same lender (package returns).
	bs, ok := r.e.borrowed.done(time.Now(), h, m)
	if ok {
		r.e.borrower.sendResults(bs)
	}
}
