// Package share decides how a node's workers are shared between the jobs
// it serves at once: the policies of a cluster whose long-lived nodes run
// jobs from several clients (tsys node --share).
//
// A Policy is a pure function of what the node knows (View): the jobs it
// serves in order of arrival, the cluster's nodes, and how many of its
// workers each job keeps busy. Its answer (a Grant per job) says how many
// workers the job may run here (sched.Port.SetShare) and whether the node
// takes part in the job at all (Active: it asks for and accepts the job's
// work). Package cluster asks it on every tick and carries it out; the
// tests drive it with views of their own. No clock, socket or goroutine is
// inside.
//
// Three policies:
//
//   - exclusive: a node serves one job at a time; another root's job is
//     refused while the first job's root lives.
//   - fchp, Turner's first-come-highest-priority: the earliest job owns
//     every node; a later job runs only on the workers the jobs before it
//     leave idle, and moves up when they end.
//   - equi, Kale's dynamic equipartition: each job states the least and
//     most nodes it can use; every job gets its least, in order of arrival
//     (a job that cannot waits with no node), and the nodes left are dealt
//     out one at a time, each to the job with the fewest, up to each job's
//     most. A node serves the one job it is dealt; which node goes to
//     which job is a rendezvous hash (Deal), so that the earliest job
//     keeps its nodes as others come and go.
//
// Every node of a cluster must run the same policy with the same view for
// their choices to agree: the view is built from gossip and from the jobs'
// start messages, which every node hears.
package share
