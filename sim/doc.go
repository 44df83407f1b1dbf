// Package sim is a deterministic discrete-event simulation of a tsys
// cluster that runs the real scheduler policies: every node holds the
// clusterpolicy.Policy that --sched makes (package schedspec), receives the events a
// cluster.Node hands it (Hungry, StealRequest, StealReply, Pushed,
// LoadReport, Membership, Tick, each with the virtual time), and the
// simulator carries out its actions (Fish, Give, Refuse, Defer, Report)
// with modelled delays. No goroutine per node, no socket, no clock: one
// event queue ordered by (time, sequence), so a seeded run is exactly
// repeatable and 1,024 nodes fit one process (`tsys sim`).
//
// # What is modelled
//
//   - Nodes of W workers, each with a deque: a worker runs its newest task,
//     steals another worker's oldest after its own runs dry (up to 2(W-1)
//     random tries, as sched's local stealing), then takes a borrowed task;
//     with none it parks and the node is hungry (the policy hears Hungry
//     when its Advice says it listens). A parked worker wakes Model.Wake
//     after work arrives for it.
//   - The job's start as cluster.Node.BeginJob makes it: the root sends
//     it to each node in turn, each send costing it Overhead, and starts
//     the root task after the last; a node works from the moment it
//     arrives, and answers requests with no task before.
//   - Load-based inlining with the real policy (Model.Inline, package
//     inline, default load:2 as tsys run): a task's children are spawned
//     one at a time after its own work; a child spawned while the
//     worker's deque holds K ready tasks (K plus the scheduler's Advice
//     Expose while other nodes want work) runs at once as a call, and its
//     later siblings wait for its subtree, so thieves and peers see the
//     tasks the runtime would expose. Where the app's code calls its last
//     child directly (Fork, then Call: EP, fib, RT, tsys.Loop), so does
//     the workload (Workload.CallsLast), whatever the policy. --inline off
//     makes every other tree node a task. As in the runtime, an inlined
//     call is never turned back into a task: work under it is locked to
//     its worker, which is what limits load-based inlining at scale. A
//     child that becomes a task costs Model.Spawn more when it runs
//     (--spawn: the push, the pop or steal, the frame), a call nothing;
//     the default, 0, leaves that cost in the tasks' own, as a workload
//     measured from a real run has it.
//   - Lending as sched.Port.Lend does it: the oldest tasks of the longest
//     deques. A lent task's whole subtree runs where it went; when its last
//     task is done a result goes back, and the job ends when the root's
//     tree is done with every result home (groups). Results go as the
//     runtime sends them: the node's returns.Batcher holds a result while
//     other tasks of the same lender run there, and sends them in one
//     message, at the latest when a worker runs dry or Model.ResultHold
//     has passed (package returns).
//   - Messages: delay = 2 x Overhead + latency (Latency inside a zone,
//     CrossLatency between zones) + bytes / Bandwidth, with TaskBytes per
//     lent task, ResultBytes per result and MessageBytes of framing.
//     Balancing's load reports go to every other node, and are counted as
//     status messages. Overhead is also charged to the CPU of both ends:
//     the next task a node starts takes that much longer. A lifeline
//     (clusterpolicy.Lifeline) is a request that its receiver's policy
//     holds until it gives; a policy hears of tasks ready to lend only
//     when a worker pushes one (Pushed), as in the runtime, not when
//     borrowed tasks arrive.
//   - Where the time goes (account.go): each worker-second is working,
//     handling messages (the Overhead its node's tasks paid), stealing
//     (no task, a request for work in flight) or idle.
//   - Node speed, and competing load over time (the hog scenarios): a
//     task's time is its cost over the node's speed when it starts.
//   - A node that dies (Model.Fail at FailAt): its tasks are gone and
//     messages to it are lost; Detect later the others hear it leave and
//     each lender runs again the tasks it lent there (a result that comes
//     back after that is ignored), as the runtime re-runs work lost with a
//     dead node.
//   - Nodes that join mid-run (Model.Joins, tsys sim --add): every policy
//     hears them join then, and the job's start reaches them from the
//     root, as cluster.Node invites a late joiner. Nodes that drain
//     (Model.Drains, --drain), as the runtime's Drain: they tell the
//     others, whose policies give them no more work, ask for nothing,
//     hand back the borrowed tasks they have not started (their lenders
//     run them, not counted as re-runs), run what they have, and leave
//     once every result is home. A loan that reaches a node after it left
//     goes back to its lender, as a failed send does in the runtime.
//   - Loads reported to the policies as a node measures them: ready and
//     idle counts now, busy and useful rates over the last tick window,
//     the mean task cost.
//   - Workloads (workload.go): NAS EP's balanced split of equal batches;
//     fib's call tree; UTS trees from the real SHA-1 generator
//     (apps/uts); the ray tracer's tiles, each costing what a cost map
//     measured by the real tracer on a quarter-size image says (rt.go;
//     saved with costmap=FILE, a run repeats exactly); a flat loop of
//     uneven iterations split lazily in halves; and a task tree recorded
//     from a real run (replay.go, tsys run --record-tree), each task costing
//     the work its own frame did.
//     Each task has a cost (the work before its children are ready) and
//     children; T_1 is the costs summed and T_inf the costliest chain, so
//     every run is checked against max(T_1/P, T_inf).
//
// # How a status broadcast is simulated
//
// A Report is N-1 status messages, one to every other node, and the
// model is defined by them: each costs its sender Overhead, is counted
// (status messages, messages, bytes, cross-zone) and reaches its receiver
// after its delay, where the receiver pays Overhead and its policy hears
// LoadReport, which may act at once (balance gives a task to a peer that
// ran dry). The simulator does all of that, but not with an event per
// message, which made each period cost N^2 events: a delay depends only
// on whether the receiver is in the sender's zone, so the receivers fall
// into at most two arrival times, and one event for each (evStatus)
// delivers the report to its receivers in node order when it is popped.
// The outcome is the per-message model's, exactly: the per-message events
// would be posted one after another, so their sequence numbers would be
// consecutive and no other event of their time could come between them;
// every other event of that time comes all before or all after them, as it
// does before or after the one event, and events posted while the report
// is delivered come after it in both. Run's stall check, between any two
// events, is made between deliveries too, and each delivery counts as an
// event. TestBroadcastIsPerMessage runs seeded configurations both ways
// (Config.perMessage) and asserts identical Results.
//
// Each receiver still hears each report, so a period still costs N^2
// calls of LoadReport: the policies keep that call cheap (package balance
// finds a peer with one probe, and a tick visits only the peers that want
// a task). A period must also be long enough for the CPU its messages
// take: when the status messages a node sends and receives each period,
// 2(N-1) at Overhead each, take longer than the period, its CPU debt
// grows faster than time passes, its tasks take ever longer, and the run
// ends when Config.Stall stops it. The balancing policy chooses its period
// so that they take at most 5% of it (balance.Params.PeriodFor, Siegell
// and Steenkiste's rule), at its own estimate of a message's cost
// (balance:cost=D, which should match --overhead); a fixed
// balance:period=D too short for the cluster collapses so.
//
// # What is not, and why
//
//   - Joins: a task's children are ready when its own work ends, and a
//     parent never waits for them (a spawn tree, as Blumofe and Leiserson
//     analyse work stealing). tsys never leaves a worker idle in a wait
//     (executors hand their worker on), so waits cost the runtime little
//     beyond what the tree's shape already says.
//   - Contention inside a node (deque atomics, the allocator, the garbage
//     collector) and the CPU the network itself takes beyond Overhead.
//   - Speed changes within a task: it runs at the speed it started at.
//   - The private part of a worker's deque (internal/sched/deque.go): here a thief
//     sees every ready task, where the runtime hides up to 8 above the
//     public floor until some worker or node wants work, which costs a
//     thief at most the owner's wait for its next push or pop.
package sim
