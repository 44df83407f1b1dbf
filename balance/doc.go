// Package balance is NewTS's balancing scheduler: nodes tell each other how
// many ready tasks they hold, and a node whose count falls below Limit
// receives one task from each node that holds more. It is the pushing
// counterpart of package fishing's stealing, and the baseline the papers
// compare it with (../shared/KNOWLEDGE.md, section 1): it needs no request
// round trip before a task moves, but its status messages grow with the
// number of nodes, and it moves tasks that a stealing scheduler would have
// left where they were.
//
// Like every sched.Policy it is a state machine fed events with their time;
// its engine (package cluster) carries out its actions:
//
//   - every Period (and at once when a worker finds nothing to do, at most
//     every Period/4) it asks its engine to Report the node's load to every
//     peer: one status message per peer;
//   - a load report from a peer whose ready count is below Limit, while this
//     node holds more, makes it Give that peer one task, once per report;
//   - it answers no steal request: a node of another scheduler is refused
//     when a job starts.
//
// # Parameters and defaults
//
//   - Limit = 1: a node receives work when it has no ready task at all. With
//     load-based inlining a busy node keeps about K ready tasks, so a higher
//     limit would feed nodes that are working.
//   - Period = 5 ms: a few round trips on a LAN, and a hundred reports in a
//     half-second job; each report costs a message to every peer.
//
// On the command line: --sched balance[:limit=L,period=P].
package balance
