// Package clusterpolicy is the contract between a node and the policy
// that moves work between nodes: the Policy interface (a pure state
// machine: events in, each with its time, Actions out), what it hears
// (node ids, Load records, member events) and says (Fish, Give, Refuse,
// Defer, Report, Lifeline; Advice between events), how a request or a
// lifeline reaches the policy (Answer, one rule for every host), and the
// meters that turn a node's busy time into the rate a Load reports.
//
// It is a leaf: it imports nothing of tsys. The policies (packages
// fishing and balance), the simulator (sim), membership's gossip of loads
// (internal/net/membership) and the cluster engine that hosts a policy in a node
// (cluster) depend on it; the one-node scheduler (sched) uses only its
// Load and NodeID. To add a scheduler policy, implement Policy in a
// package of its own, as fishing does, and add its line to package
// schedspec's table, which parses --sched and writes every help text.
package clusterpolicy
