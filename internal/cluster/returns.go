package cluster

import (
	"time"

	"github.com/tsys-go/tsys/internal/returns"
)

// sendResults sends batches of results home, one message to a lender
// each (a result alone, a results message for more), drops their tasks
// from the book once on their way, and has the results still held sent
// when they are due.
func (b *borrower) sendResults(bs []returns.Batch[heldResult]) {
	for _, batch := range bs {
		first := batch.Results[0]
		var m message = first.m
		if len(batch.Results) > 1 {
			rs := &results{Job: b.e.info.ID, Results: make([]result, len(batch.Results))}
			for i, r := range batch.Results {
				rs.Results[i] = *r.m
			}
			m = rs
		}
		// To the lender even when gossip no longer lists it: one that is
		// only slow waits for these results, and one that died has re-run
		// the tasks and drops them.
		if err := b.e.n.out.send(first.l.node, first.l.addr, m, b.e); err != nil {
			b.e.n.netLog.Warn("results could not be sent; their lender re-runs the tasks if it is gone", "peer", first.l.node, "results", len(batch.Results), "err", err)
		}
		b.e.borrowed.sent(batch)
	}
	b.armReturns()
}

// armReturns starts the timer that sends the results held once they are
// due, unless it runs: a result waits at most returns.Params.Hold even
// when no task here ends and no worker runs dry.
func (b *borrower) armReturns() {
	if b.e.borrowed.waiting.Load() == 0 || !b.returnTimer.CompareAndSwap(false, true) {
		return
	}
	next, ok := b.e.borrowed.next()
	if !ok {
		b.returnTimer.Store(false)
		return
	}
	time.AfterFunc(max(time.Until(next), 0), b.returnsDue)
}

// returnsDue sends the results due now; sendResults waits again for the
// next ones.
func (b *borrower) returnsDue() {
	bs := b.e.borrowed.due(time.Now())
	b.returnTimer.Store(false)
	b.sendResults(bs)
}
