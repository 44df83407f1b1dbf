// Package fishing is the cross-node scheduler of tsys: work stealing between
// nodes, which NewTS (the T-system's later implementation) calls fishing. A
// node whose workers find no ready task at home sends a fishing request to
// another node; that node answers with its oldest ready task(s), or with a
// refusal.
//
// Like every clusterpolicy.Policy, a fishing Policy is a state machine with no
// goroutine, no socket, no lock and no clock: the engine hosting it calls its
// methods one at a time on events, each with its time (a worker is hungry, a
// request or an answer arrived, a node joined or left, a load report came,
// time passed), and carries out the actions it returns. The same code
// therefore runs in the runtime, in unit tests on a hand-moved clock and in
// the discrete-event simulator (package sim, tsys sim).
//
// # The algorithm
//
// An idle worker first looks at home: the pool steals from the node's other
// workers by itself. Only when a round of that fails does the policy hear of
// it (Hungry), and fish: while fewer than MaxInFlight requests are
// outstanding and some peer is eligible, it returns Fish{Node: victim,
// Count: TasksPerAnswer} and counts the request in flight. Requests in
// flight go to distinct peers. A peer is eligible when no request to it is
// in flight and it is not backing off.
//
// A node asked for work (StealRequest) with ready tasks lends
// min(batch, ceil(ready/2)) of them, its oldest, which in a
// divide-and-conquer program are the largest pieces of work. Lending at most
// half, rounded up, keeps a node from giving away everything it has while
// still letting a node with a single ready task lend it. The batch is kept
// per asking peer: it starts at TasksPerAnswer, doubles (up to
// MaxTasksPerAnswer) each time the peer asks again within QuickReturn of
// its last tasks, and halves when it stays away for 4 x QuickReturn. So
// coarse tasks (EP, RT) travel one at a time, and the tiny ones of a
// binomial UTS tree in batches that outlast a round trip. A borrower asks
// again as soon as half of its last batch is left, or fewer than LowWater
// (Advice.Reserve).
//
// With fewer than MinReady ready tasks, the node holds the request for its
// next push, for at most DeferFor, then refuses (NewTS's deferred answer):
// a refusal costs the asker a round trip and a back-off, while the asked
// node, told by the request to keep tasks stealable, pushes one within
// microseconds if it is working at all. A node that is not working at all
// (every worker waits, nothing is ready) refuses at once: holding the
// request would keep the asker from the peers that have work, and on many
// nodes, where most peers a thief asks at random are as dry as it is, that
// wait is what the thieves spend their time in (bench/README.md, "A dry
// node refuses at once").
//
// The answer (StealReply) frees the request's slot. A refusal puts the peer
// in backoff: it is not asked for RetryBackoff, doubled on every further
// refusal up to MaxBackoff; an answer with tasks resets it. A request left
// unanswered for ReplyTimeout (the peer may have died, or the message been
// lost) is forgotten on the next Tick and counts as a refusal; a request to
// a peer that leaves the cluster (Membership) is dropped at once. Either way
// the node may fish elsewhere.
//
// Once a worker has found nothing at home the node is hungry, until an
// answer brings tasks or a Tick reports the node busy (no idle worker, or
// ready tasks). While it is hungry, the events that can free a slot or a peer
// (a refusal, a Tick, a join or leave, a load report) fill the free slots
// themselves and return the Fish actions, so a node whose workers have all
// parked keeps fishing: after a refusal it asks the next eligible peer at
// once, and once every peer is backing off it asks again on the first Tick
// after a backoff ends. The engine should therefore Tick every few
// milliseconds, or, while every worker of the node waits or every worker
// is at work, at the time NextDue gives (clusterpolicy.Sleeper; idle.go):
// a busy node fishes only once a worker runs dry, which is an event, unless
// it asks ahead of need (LowWater). With IdleBackoff, the
// backoff of a peer that keeps refusing such a node doubles on past
// MaxBackoff, and is cut back once a worker has work or the peer reports
// ready tasks.
//
// With Lifelines, a hungry node that is starved (fewer than one in 8 of
// its recent answers brought tasks) and whose requests came back empty
// Lifelines times in a row stops asking at random and waits on its
// lifelines, as X10's GLB does: it sends each of its buddies, a few nodes
// of a hypercube-like graph over the members, a request that waits there
// (clusterpolicy.Lifeline) until that node has tasks to give, however
// long it takes. Tasks that come end the wait; a node holding lifelines
// answers them from its next push, after its deferred requests
// (lifeline.go).
//
// Hungry is reported by every idle worker at every round of its search, so
// the engine asks the policy only when its Advice says a request could go
// out now (HungryAfter): every slot in use, no peer, or every peer backing
// off until some time make it wait for another event or for that time. An
// idle worker learns it from one atomic load.
//
// A request for work is also news that a peer starves. For DemandHold after
// one, the policy advises its node to keep more ready tasks in its deques
// than the inlining policy alone would (Advice.Expose: Expose, or 8 batches
// of the asker if more): a node that inlines every spawn while its peers
// fish has nothing stealable to give them (NewTS makes allowCCall a method
// of the scheduler for that reason). Running dry and a peer joining hold
// demand too. An inlined call is never turned back into a task, so the
// spawns a node makes on the work it just borrowed, or the root on a
// fresh job, decide what the cluster can ever take of it: with only K
// exposed, a quarter of every borrowed subtree stays locked in calls
// (bench/README.md, "Simulated clusters", measures what that costs).

// # Victims
//
// Random (the default) picks uniformly among the eligible peers: the
// classic work-stealing choice, provably efficient and needing no
// information.
//
// Load picks the eligible peer whose last load report (LoadReport) showed the
// most ready tasks, ties broken at random. Peers that reported nothing ready
// are skipped while a report shows work elsewhere; failing that, peers never
// heard from are asked, and failing those, any eligible peer. A refusal counts
// as a fresh report of nothing ready. Reports are hints: gossip lags by tens
// of milliseconds, so a node that stopped fishing while every report said
// "nothing ready" would wait for gossip with work to be had (bench/README.md,
// "Two nodes against one"). Back-off bounds what asking an empty peer costs.
//
// Zone prefers peers of the node's own zone and keeps at most one request to
// another zone in flight: Satin's cluster-aware random stealing (CRS), in
// which a node steals synchronously inside its own cluster while one
// asynchronous wide-area steal request is outstanding. With one request in
// flight (MaxInFlight = 1, or the default on up to 2 peers) the one slot
// goes to the own zone, and to another zone only when no peer of the own
// zone is eligible; with two or more a wide-area request is sent alongside
// the own-zone ones, as in CRS. In a single zone Zone is Random.
//
// # Parameters and defaults
//
//   - Victim = Random: needs no load reports and no zones.
//   - MaxInFlight = auto: the square root of the number of peers, rounded
//     (inflight.go). On two or three nodes that is one request, as NewTS
//     fishing: more would mostly bring tasks the node's workers would have
//     found at home a moment later. On many nodes, where most peers asked
//     at random are dry and refuse at once, asking several at a time cuts
//     the thieves' search; where nearly every answer is a refusal there is
//     nothing to find, and the count falls back towards one. With Zone,
//     two or more give CRS's overlap of local and wide-area stealing.
//   - TasksPerAnswer = 1: the oldest task of a divide-and-conquer program
//     carries a large share of the remaining work, and one is enough to feed
//     a whole node, whose workers split it by local stealing (tsys bench
//     counts the tasks moved: bench/README.md, "Two nodes against one"). A
//     fixed larger batch speeds up binomial UTS trees but slows EP, UTS T1
//     and RT, whose thieves cannot use what they get, hence the adaptive
//     batch.
//   - MaxTasksPerAnswer = 8, QuickReturn = 5 ms: on binomial UTS trees,
//     whose stolen subtrees are mostly tiny, a thief soon asks again and its
//     batch grows, while the coarse tasks of EP, T1 and RT keep a thief busy
//     for longer than QuickReturn and their batches stay at 1
//     (bench/README.md, "Stealing across nodes on binomial trees").
//   - RetryBackoff = 0.5 ms, doubling to MaxBackoff = 20 ms: a refused node
//     stops flooding a peer that has nothing (a few round trips on a LAN),
//     while a peer that gets work again is asked within at most 20 ms. An
//     answer with tasks resets it. Negative RetryBackoff disables it. A
//     longer back-off makes a node that fished before the root had spawned
//     anything sit out milliseconds of the job (bench/README.md, "Two nodes
//     against one").
//   - MinReady = 1: lend whenever there is something to lend. The trade-off:
//     a node lending its only ready task may leave one of its own workers
//     (that would have stolen it locally, at no network cost) idle, but a
//     higher threshold keeps a whole idle node waiting while the lender's
//     workers are busy anyway; with coarse tasks, lending early wins.
//   - ReplyTimeout = 1 s: far above any LAN round trip, small against a run.
//   - Expose = 16 (at least 8 batches) for DemandHold = 2 ms, DeferFor =
//     2 ms: each cuts the idle time of binomial UTS trees on 2 nodes, and
//     the two together more (bench/README.md, "Stealing across nodes on
//     binomial trees"). The hold is short because a node keeps its
//     exposed tasks by making every spawn a task: on fine-grained code
//     that costs more than the thieves gain after a few round trips
//     (bench/README.md, "How long demand holds").
//   - LowWater = 0: a node asks only once a worker has nothing. low=N
//     makes a node whose workers are all at work, holding fewer than N
//     ready tasks, ask ahead of need (prefetch.go); bench/README.md,
//     "Asking ahead of need", simulates it against the defaults.
//   - Lend = auto: on clusters of 16 nodes or more a node lends half of
//     what is ready, up to what was asked (steal-half, as UTS-MPI's
//     chunked steals), on smaller ones its asker's adaptive batch. With a
//     lender's results going home together (package returns), a larger
//     batch costs no more messages than a small one, so on many nodes a
//     thief takes enough to keep it and its own thieves busy; on few, the
//     adaptive batch is as fast (bench/README.md, "Messages at scale").
//   - Lifelines = auto: 2 on clusters of 256 nodes or more, none on
//     smaller ones. On many nodes most are dry most of the time, and the
//     thieves' refused requests cost more than the work; on fewer, where
//     answers often bring tasks, asking on finds work sooner, and each
//     task a lifeline moves costs a result as any other (bench/README.md,
//     "Lifelines").
//
// A zero field of Params takes its default, so Params{Victim: Zone} is a
// complete configuration. On the command line, --sched fishing:OPTIONS sets
// them (ParseParams), e.g. fishing:load,tasks=4,expose=32.
package fishing
