// Package cluster makes one tsys runtime a node of a cluster: it joins the
// others through memberlist (net/membership), talks to them over the task
// transport (net/transport), and carries out what the scheduler policy
// (e.g. package fishing) decides, knowing nothing of policy itself.
//
// # Jobs
//
// A job runs its root task on one node, the root node. BeginJob announces
// the job (JobStart) to every member, which starts serving it: its workers
// run, idle, and fish for work. EndJob announces the end (JobEnd); each
// node stops, drops what it still holds of the job, and answers with its
// counters, which the root node reports per node. One job runs at a time.
//
// # Lending
//
// A policy's Fish action becomes a StealRequest to the chosen node. The
// node asks its policy how many tasks to give and takes that many of its
// oldest ready tasks (sched.Pool.Lend), records each under an id, and
// sends them as (registered name, encoded argument) in a StealReply. The
// borrower rebuilds each task from its kind's codec, marks it with a loan,
// and puts it in its pool; when it completes, the result goes back in a
// Result message, and the lender completes the task's future, releasing
// whoever waits on it.
//
// Nothing lent is lost: a lent task stays recorded on the lender until its
// result returns. If the borrower leaves or dies, or answers that it
// cannot run the task (an unknown name, an undecodable argument), the
// lender runs the task again itself.
//
// # Trust
//
// With a cluster key, gossip is encrypted with it (memberlist's keyring)
// and every transport connection proves it in a challenge-response
// handshake before a single message is accepted. Without a key a node
// binds to loopback only.
package cluster
