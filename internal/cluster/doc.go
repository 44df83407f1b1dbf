// Package cluster makes one tsys runtime a node of a cluster: it joins the
// others through memberlist (internal/net/membership), talks to them over the task
// transport (internal/net/transport), and carries out what the scheduler policy
// (e.g. package fishing) decides, knowing nothing of policy itself.
//
// # Parts
//
// Each part is a type with its contract written on it (who calls it, on
// which goroutine, under which lock), and a lock of its own where it
// keeps state. A part reaches the others by named fields, most through
// one back to its node or its engine: no part embeds another, whose
// methods would be its own unseen.
//
//   - Node (node.go): what its user calls (Start, BeginJob, EndJob, Drain,
//     Snapshot, Close), and the parts that do the work.
//   - ticker (tick.go): the tick that drives the rest, and dozes while
//     nothing can change but on an event (idletick.go).
//   - inbox (inbox.go): what the node does on others' word over the
//     transport, one handler for each message type; gossipInbox
//     (gossipinbox.go) on gossip's: a member joining, coming back or
//     leaving.
//   - peerBook (peers.go): the members' addresses and gossiped metadata.
//   - outbox (send.go): where every message leaves, counted by type and by
//     job.
//   - jobTable (jobs.go): the jobs the node roots or serves, their engines
//     and runtimes; sharing (sharing.go) deals the workers out between them.
//   - Job (job.go): a job this node roots, its invitations and its peers'
//     reports; server (serve.go): the node's part in other roots' jobs,
//     admitting one or refusing it, serving, stopping and reporting it;
//     orphans (suspect.go): the jobs served here whose root gossip lost.
//   - drainer (drain.go): taking the node out of the cluster; gatherer
//     (snapshot.go): the cluster's snapshots, asked of every member.
//   - engine (engine.go): one job here, its pool and its policy, which it
//     drives; its lending side is a lender (lender.go, lend.go, over the
//     ledger, ledger.go), which backs up the loans of a borrower gone
//     silent (backup.go, as silence.go decides; the node's wordBook
//     there says when each peer last spoke), its borrowing side a
//     borrower (borrower.go, over
//     a borrowBook, borrowed.go), what the pool's workers call a remote
//     (remote.go); its timeline is a jobTimeline (timeline.go), its root's
//     state a rootWatch (suspect.go). A task's bytes are made and read in
//     codec.go alone.
//
// No type has more than 25 methods (methods_test.go): one that outgrows
// that has more than one concern, which go in parts of their own.
//
// Lock order: sharing, then the job table, then an engine's, then a
// lender's; the others are leaves. No lock is held while sending.
//
// Where to start: a new message is one edit in messages.go and its
// handler (see Messages); a new per-job counter is a field of NetStats
// (stats.go) and of the engine, counted where it happens and copied in
// engine.counters, then a line in package monitor makes it a metric; a
// new scheduler policy is a clusterpolicy.Policy in a package of its own,
// given a line of package schedspec's table, and needs nothing here.
//
// # The engine of a policy
//
// Each job a Node serves or roots has an engine (engine.go) that hosts a
// policy (clusterpolicy.Policy) of its own: it hands it every event one at a time
// under the engine's mutex, with the time it read (a worker is hungry, a
// steal request or answer came, a push that a deferred request waits for,
// a load report, a member joined, left or stopped taking part in the job,
// a tick every 2 ms, or, while the node's workers all wait for work
// elsewhere or all are at work, when the policy says it is next due, at
// most 25 ms apart while at work: idletick.go), and
// carries out the actions. After each event it
// publishes the policy's Advice to the job's pool: when a hungry worker is
// worth reporting (an atomic the workers read), how many more ready tasks
// to keep stealable, how many borrowed tasks to keep in hand, and whether
// pushes are awaited. The node gossips its load, summed over its jobs,
// with the rate of useful work a clusterpolicy.RateMeter measures, every 100 ms
// when it changed (the rate only once it moved by a tenth: gossipload.go).
//
// # Messages
//
// messages.go is the vocabulary nodes speak: steal requests and replies,
// results, job start, end, report and failure, shutdown; each a message
// type of the transport with a field for each thing it says. Each type's
// bytes are described once, by its fields method, which a wire.Codec
// walks to encode a message, to decode one (with the limits and checks
// that make it refuse what no node sends) and, for tests, to make random
// ones. The inbox dispatches a message that arrives by its row of the
// vocabulary to its handler. A new message is one edit in messages.go,
// and jobAsk's lines there are the example: a constant before msgEnd
// (msgJobAsk), the type (jobAsk, a field for each thing it says), its
// msgType method, its fields method (c.Uvarint(&m.Job, "job"), then
// c.String(&m.ReplyTo, "reply address", maxStringLen)), a replyAddr
// method if it carries a reply address (for replyto.go to replace), and
// its row of vocabulary, says("job ask", inbox.onJobAsk), which names its
// handler, an inbox method where its work is. The tests then round-trip
// random messages of the type and check that every field is in its
// description; a sample of it in sampleMessages and its bytes in
// testdata/messages.golden pin what it sends. A change to what any
// message sends moves transport.ProtocolVersion.
//
// A message that does not decode is dropped with a warning, never
// trusted. Every line a message can make a node log goes through a bucket
// per kind of line (Node.netLog, a transport.LimitedLog), so a stranger's
// flood costs a line a second.
//
// A message's reply address (ReplyTo) is its sender's word, and a keyless
// sender's word is anyone's: the node never dials it nor resolves a name
// in it. Before anything reads it, the inbox replaces it by the sender's
// gossiped address, or by the route back on the connection it came on
// (transport.ReplyAddr), for a peer gossip has not brought yet and for a
// command that asks without joining (replyto.go).
//
// # Jobs
//
// A job runs its root task on one node, the root node. BeginJob announces
// the job (jobStart) to every member, which starts serving it: its workers
// run, idle, and fish for work. The announcement lists the tasks that may
// cross nodes in the root's binary, each with a fingerprint of its
// argument and result types (sched.Kind.Types, hashed), and the root's
// build (module version and revision, and the Go build ID of its
// executable when those do not name the code). A member whose binary
// lacks one of the tasks, or gives one other types, refuses the job at
// once, naming them and both types; one of another build refuses it too,
// naming both builds, unless the root's start or its own Config says
// AcceptBuilds, which the operator sets (--accept-builds) for builds they
// know compute alike: then it serves, with a warning (binary.go). The
// root logs each refusal as a warning and runs on without the node. A
// start without fingerprints is an older root's, and is refused when it
// lists any task. A borrower that hands back a loan it cannot run is
// warned of once and lent nothing more of the job (lender.go). A node
// that joins the cluster while the
// job runs is invited the same way as soon as the root hears of it
// (Kale's expanding malleable job): its policy hears JobStarted, the
// others' hear it join, and work reaches it through the running scheduler.
// EndJob announces the end (jobEnd); each node stops, drops what it still
// holds of the job, and answers with its counters (jobReport), which the
// root node reports per node.
//
// # Many jobs
//
// A node keeps one engine per job it roots or serves (engine.go): the
// job's pool, its own scheduler policy, its loans and counters, so that
// jobs from several roots run at once and each keeps its results and
// failures. Every message names its job and goes to its engine. How the
// node shares its workers between the jobs is its sharing policy (package
// share; sharing.go here carries out its grants): fchp, equi or exclusive.
// The root of a job serves no other job, and neither does a client
// (Config.Client, tsys run): roots do not invite one, and one declines an
// invitation, so that it can always begin its own job; the policies of
// other jobs are not told of it, nor sent their presence or load
// (engine.hears, peerBook.listFor).
//
// # Lending
//
// A policy's Fish action becomes a stealRequest to the chosen node. The
// node asks its policy how many tasks to give (or to hold the request for
// its next push) and takes that many of its oldest ready tasks
// (sched.Port.Lend), records each under an id, and sends them as
// (registered name, encoded argument) in a stealReply. The borrower
// rebuilds each task from its kind's codec, marks it with a loan, and puts
// it in its pool; when it completes, the result goes back in a result
// message, or with others to the same lender in a results message when
// the book's returns.Batcher holds it for them (borrowed.go, returns.go:
// while another task of that lender runs here, until a worker runs dry,
// for at most returns.DefaultHold, never for a task here longer than
// that), and the lender completes the task's future, releasing whoever
// waits on it. Each node counts its requests, their answers and the time it
// waited for them (NetStats.StealRequests, StealAnswers, StealWaitNs).
//
// Nothing lent is lost: every loan stays in the lender's ledger
// (ledger.go) until it ends, exactly once: its result came home, the
// borrower handed it back (leaving, or unable to run it: an unknown name,
// an undecodable argument), or the lender ran it again itself because the
// borrower died, said it no longer holds it, or said nothing about it for
// loanSilence (lenders ask about quiet loans every loanAskEvery). Nor
// does a job wait out a borrower that is cut off or stopped: one that
// holds loans and says nothing for a few times the time its job's
// borrowers take to answer (a second at least) has its loans started
// again on the lender, each once (backups, backup.go, as silence.go
// decides), and whichever result comes first completes the task. A loan
// keeps the address its borrower's answers go to, and a borrowed task
// the lender's (a gossiped address, or a route back on a connection), so
// that nothing is forgotten for want of an address when gossip drops a
// node that is only slow.
//
// # Suspicion
//
// Gossip declares dead a node that is only slow as readily as one that
// crashed; suspect.go lists the rules that keep a job going through that.
// In short: a lender backs up what a silent node holds, and re-runs at
// once what a node declared dead held, and drops (and counts,
// late_results) a result that comes after all; a node
// whose job's root is declared dead serves on for RootGrace; a root
// invites again a node that comes back; and no wait of a root lasts
// without a bound.
//
// # Leaving
//
// Drain (drain.go) takes a node out gracefully: it takes no more work,
// hands back the borrowed tasks it has not started (a result marked
// Leaving, which the lender runs without counting it as a re-run),
// finishes the ones it has, reports to the job's root and leaves
// memberlist. A client leaves memberlist as its job ends (Close). From
// gossip's word that a member is leaving, it is no peer (peers.go): no
// job invites it and nothing goes to it unasked, for it may be gone
// before its leave arrives. A lender gives a node that left gracefully
// LeaveGrace for its results in flight before it runs anything again; one
// that died, it runs again at once (tasks_rerun). Commands talk to a node
// without joining (ask.go): tsys drain, and tsys jobs through a stats
// request that gathers every member's Snapshot (snapshot.go), as the
// dashboard does.
//
// # Counters
//
// Each engine counts what its job does across nodes (NetStats, stats.go):
// tasks lent, borrowed, run again and handed back, late results, messages
// and bytes sent, requests for work and the wait for their answers, the
// load reports, and the useful time its ticks measure. The node's
// scheduler counts the rest (sched.Stats). A node's report of a job
// (NodeReport, the jobReport message) has both in a JobStats, whose
// embedded parts make one flat JSON object of counters, and the root
// sums the nodes' into the job's. A Snapshot has them apart: the
// workers' sched.Stats, and the node's NetStats for its current job.
//
// # Trust
//
// With a cluster key, gossip is encrypted with it (memberlist's keyring),
// and every transport connection proves it in a challenge-response
// handshake before a single message is accepted, then seals every frame
// (package transport). Without a key a node
// binds to loopback only.
package cluster
