package cluster

import (
	"context"
	"time"
)

// The task stream (sched.Stream) of a node's workers costs the job only
// while someone watches: asking for it switches it on for streamLinger,
// so a page that polls every second keeps it on, even when a loaded
// machine answers its polls seconds apart, and one closed switches it off
// half a minute later.
const streamLinger = 30 * time.Second

// Bounds on what a stream request may ask, checked as it is decoded: a
// node keeps a few thousand events a worker, which a window of a minute
// covers, and a resolution finer than minStreamRes only makes the answer
// larger.
const (
	maxStreamWindow = time.Minute
	minStreamRes    = 10 * time.Microsecond
)

// streamSnapshot is the node's Snapshot, with its task stream of the last
// window, drawn to res, when window is positive.
func (g *gatherer) streamSnapshot(window, res time.Duration) Snapshot {
	s := g.n.Snapshot()
	if window > 0 {
		pool := g.n.jobs.main.Main()
		pool.View().WatchStream(streamLinger)
		d := pool.View().StreamData(string(g.n.name), time.Now(), window, res)
		s.Stream = &d
	}
	return s
}

// ClusterStream is ClusterSnapshot with each node's task stream of the
// last window, drawn to res: what the dashboard's task stream draws. The
// nodes that were not recording start to, and answer with what they have
// from then on.
func (n *Node) ClusterStream(ctx context.Context, timeout, window, res time.Duration) []Snapshot {
	window = min(max(window, time.Millisecond), maxStreamWindow)
	res = max(res, minStreamRes)
	return n.gatherer.gather(ctx, timeout, window, res)
}
