package fishing

import (
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// demand is the news that peers starve (doc.go, "The algorithm"): for
// DemandHold after a request for work, the node running dry, a peer
// joining or a job starting, the policy advises its node to keep more
// ready tasks stealable than the inlining policy alone would
// (Advice.Expose): Expose, or 8 batches of the last asker if more.
type demand struct {
	hold   time.Duration // Params.DemandHold
	expose int           // Params.Expose; negative: none
	until  time.Time     // the end of the hold
	batch  int           // the batch of the last request
}

// holdFrom keeps Expose for DemandHold from now: peers will want work
// soon. A node that runs dry says its peers are starting to starve too, a
// peer that joins has nothing yet, and on a fresh job nobody has; either
// way a task that arrives or is split now should leave its big pieces
// stealable rather than locked in inlined calls, which no thief can take
// (bench/README.md, "Simulated clusters": tsys sim --app ep --nodes 128).
func (d *demand) holdFrom(now time.Time) {
	if until := now.Add(d.hold); until.After(d.until) {
		d.until = until
	}
}

// asked holds demand for DemandHold from a request at now, of an asker
// lent batch tasks at a time.
func (d *demand) asked(now time.Time, batch int) {
	d.until, d.batch = now.Add(d.hold), batch
}

// exposeAt is the Advice's Expose at now.
func (d *demand) exposeAt(now time.Time) int {
	if now.Before(d.until) && d.expose >= 0 {
		return max(d.expose, 8*d.batch)
	}
	return 0
}

// due is when the hold ends and Expose changes, or Never.
func (d *demand) due(now time.Time) time.Time {
	if d.expose >= 0 && now.Before(d.until) {
		return d.until
	}
	return clusterpolicy.Never
}
