// Package monitor serves a node's state over HTTP (tsys node --http,
// tsys run --http): what an orchestrator, a scraper or a person watching
// the cluster needs while it runs, rather than after a job ends.
//
// Endpoints:
//   - /healthz: 200 once the node has joined its cluster and is not
//     draining; 503 while it drains, so that an orchestrator stops
//     counting on it (Kubernetes readiness). Always open: it says nothing
//     an orchestrator's probe must not know.
//
// Security: the server binds loopback unless the node has a cluster key; a
// node without one refuses a routable --http address, saying why.
//
// Concurrency contract: a Server's handlers read the node through its
// exported, concurrency-safe methods only; they never take a lock a worker
// holds, so a slow or stuck client cannot stall the node. Close stops the
// listener and waits for the handlers to return.
package monitor
