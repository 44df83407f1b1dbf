// Package monitor serves a node's state over HTTP (tsys node --http,
// tsys run --http): what an orchestrator, a scraper or a person watching
// the cluster needs while it runs, rather than after a job ends.
//
// Endpoints (server.go):
//   - /: the dashboard (dashboard.html, embedded; no library, no build
//     step), which polls /api/stream about once a second and draws every
//     node's load, rates, per-worker busy share and task stream; every
//     job with the progress its tasks report (cluster.JobProgress's sum),
//     linked to a page of its own (/?job=ID: the nodes that serve it); and
//     charts of each node's busy share, rates and memory since the page
//     opened, kept in the page, so that nothing is recorded for a page
//     nobody opens; and who lent to whom (cluster.Link, counted by each
//     borrower), with each link's tasks, rate and request latency.
//   - /api/node and /api/cluster: cluster.Snapshot of this node, or of
//     every node that answers within clusterTimeout (api.go).
//   - /api/stream: /api/cluster with each node's task stream of the last
//     window (stream.go), which asking switches on for a while.
//   - /metrics: the same numbers for Prometheus (metrics.go), counters
//     kept monotonic across jobs, with Go's, the process's and
//     memberlist's own metrics.
//     To add a metric of a job's counters, add the counter to
//     cluster.NetStats (or sched.Stats, for the scheduler's own) where it
//     is counted, and one line to the lists in metrics.go.
//   - /debug/pprof/: Go's profiles.
//   - /healthz: 200 once the node has joined its cluster and is not
//     draining; 503 while it drains, so that an orchestrator stops
//     counting on it (Kubernetes readiness).
//
// Security: the server binds loopback unless the node has a cluster key,
// and a node without one refuses a routable address, saying why. On a
// routable address every endpoint but /healthz asks for Token(key), as a
// bearer token or ?token=.
//
// Concurrency contract: the handlers read the node through Node, whose
// methods are safe from any goroutine and take the node's lock only to
// copy a few fields; a snapshot of the other nodes waits at most
// clusterTimeout for them. So a slow or dead browser, or a dead peer,
// cannot stall the node. Close stops the listener, gives open requests a
// second, then closes them, and returns when the server's goroutine has.
package monitor
