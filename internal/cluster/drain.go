package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// DrainReport is what a Drain did: the borrowed tasks it handed back
// unstarted, those it ran to their end, and how long it took.
type DrainReport struct {
	Returned, Finished int64
	Took               time.Duration
}

// Drain takes the node out of the cluster gracefully, as Kale's malleable
// jobs shrink: nothing it holds is lost and nothing is run twice.
//
//  1. It stops taking work: it tells its peers it is leaving (their
//     policies give it no more), its workers ask no one (Hungry is ignored, and
//     so are the policy's Fish actions), and tasks lent to it from now on
//     go straight back (handBack).
//  2. It hands back the borrowed tasks no worker has started; their
//     lenders run them, and count them as returned, not re-run.
//  3. It runs the tasks it started to their end and sends their results
//     home. It still answers requests for work, so the scheduler can
//     spread the pieces its running tasks split off.
//  4. Serving a job, it sends its report to the job's root, which keeps it
//     for the job's end; then it leaves memberlist and closes.
//
// If ctx ends before step 3 is done, Drain returns an error and the node
// stays in the cluster, still draining: the caller may drain again or
// Close it (its lenders then run again what it held, as for a crash). The
// root of a running job does not drain: its job ends with it.
func (n *Node) Drain(ctx context.Context) (DrainReport, error) {
	rep, err := n.drainer.empty(ctx)
	if err != nil {
		return rep, err
	}
	return rep, n.Close()
}

// drainer takes the node out of the cluster, for its user (Drain) or
// for a peer that asks (drainFor, a drainRequest, on a goroutine of its
// own). Its methods wait for the borrowed tasks running here, so they
// never run on a connection's reader nor on the tick. The first drain
// sets the node's draining flag, which every part that takes work reads.
type drainer struct{ n *Node }

// empty is Drain up to leaving: steps 1 to 4.
func (d *drainer) empty(ctx context.Context) (DrainReport, error) {
	began := time.Now()
	if j := d.n.jobs.rooted(); j != nil {
		// Its job's root task runs here, and its borrowers report here.
		return DrainReport{}, fmt.Errorf("node %s is the root of a running job; it can leave when the job ends", d.n.name)
	}
	if d.n.draining.CompareAndSwap(false, true) {
		d.n.log.Info("draining: taking no more work, handing back what has not started")
		// The peers' policies stop giving it work (MemberEvent.Leaving);
		// a balancing peer would otherwise keep pushing to a node that
		// reports it has none, only to have it handed back. Fishing
		// peers still ask it for what it holds.
		tm := encodeMessage(&leaving{})
		for id, addr := range d.n.peers.list() {
			if err := d.n.out.transmitEncoded(addr, &leaving{}, tm, false, nil); err != nil {
				d.n.log.Debug("a peer did not hear this node is leaving", "peer", id, "err", err)
			}
		}
	}
	engines := d.n.jobs.list()
	for _, e := range engines {
		e.withdraw()
		// Every worker, whatever the sharing: what it holds goes first.
		e.pool.Port().SetShare(e.pool.Workers())
	}
	handedBack := func() (sum int64) {
		for _, e := range engines {
			sum += e.handedBack.Load()
		}
		return sum
	}
	finished := int64(d.n.jobs.holding())
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for d.n.jobs.holding() > 0 {
		select {
		case <-ctx.Done():
			return DrainReport{Returned: handedBack(), Took: time.Since(began)},
				fmt.Errorf("node %s is still running %d borrowed tasks: %w", d.n.name, d.n.jobs.holding(), ctx.Err())
		case <-tick.C:
		}
	}
	for _, e := range engines {
		if end, ok := d.n.server.stopEngine(e); ok {
			d.n.server.sendReport(e.root(), e.rootWatch.addr, e.info.ID, end)
		}
	}
	rep := DrainReport{Returned: handedBack(), Finished: finished, Took: time.Since(began)}
	d.n.log.Info("drained; leaving the cluster", "returned", rep.Returned, "finished", rep.Finished, "took", rep.Took)
	return rep, nil
}

// drainFor drains the node as a drainRequest from peer asks, answers it,
// and leaves; the process that runs the node hears ShutdownRequested.
func (d *drainer) drainFor(peer clusterpolicy.NodeID, m *drainRequest) {
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	d.n.netLog.Info("asked to drain", "by", peer)
	rep, err := d.empty(ctx)
	answer := &drained{Returned: rep.Returned, Finished: rep.Finished}
	if err != nil {
		answer.Err = err.Error()
	}
	if err := d.n.out.transmit(m.ReplyTo, answer, true, nil); err != nil {
		d.n.netLog.Warn("could not answer the drain request", "by", peer, "err", err)
	}
	if answer.Err == "" {
		d.n.Close()
		d.n.requestShutdown()
	}
}

// Draining reports whether Drain has begun.
func (n *Node) Draining() bool { return n.draining.Load() }

// RequestDrain asks the node whose task transport listens at addr to drain
// (Node.Drain) within timeout, and waits for its answer: what tsys drain
// does. key is the cluster's key, nil for a keyless cluster on loopback;
// bind is where this side listens for the answer (default 127.0.0.1:0).
func RequestDrain(ctx context.Context, addr, bind string, key []byte, timeout time.Duration) (DrainReport, error) {
	began := time.Now()
	// The node answers within timeout, or says why not; a little more
	// covers the answer's way back.
	d, err := ask[*drained](ctx, addr, bind, key, timeout+5*time.Second, func(replyTo string) message {
		return &drainRequest{ReplyTo: replyTo, Timeout: timeout}
	})
	if err != nil {
		return DrainReport{}, fmt.Errorf("draining the node at %s: %w", addr, err)
	}
	rep := DrainReport{Returned: d.Returned, Finished: d.Finished, Took: time.Since(began)}
	if d.Err != "" {
		return rep, fmt.Errorf("node at %s did not drain: %s", addr, d.Err)
	}
	return rep, nil
}
