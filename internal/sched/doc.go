// Package sched is the scheduler of one node: deques, workers, the
// executors that run tasks; the policy interface that decides where idle
// workers look for work across nodes is package clusterpolicy's.
//
// # The pieces
//
// A Worker is one slot of parallelism: a split Deque of task frames (a
// Chase-Lev deque whose newest tasks the owner may keep private while
// every worker is busy) and the counters of the work done through it. An
// Executor is a goroutine that runs tasks on behalf of the worker it
// holds; a task reaches it through a Ctx (tsys.Ctx), one per executor and
// one more per closure body it runs, of which only the innermost may be
// used, on the executor's goroutine, during its run: every other use is
// named before it touches anything (ctx.go). A Pool
// owns the workers of a node and the executors of the current run, and
// steals between them by itself (local.go, idle.go). Across nodes, a
// Policy hears the node's events and answers with Actions, which package
// cluster carries out through the pool's Port; the pool reaches the
// cluster through Remote.
//
// # The pool's sides
//
// A pool has three kinds of caller, and a type for each, with its own
// concurrency contract, so that a reader holds one side at a time:
//
//   - Pool, its owner's: make it, set it up between runs, run jobs on it
//     (Run, RunSolo, Serve), one at a time (pool.go, run.go, solo.go).
//   - Port, the cluster engine's (Pool.Port): lend, inject, complete and
//     fail tasks, publish the policy's advice and the node's share,
//     measure the node's load; from the engine's goroutines, at any time,
//     while the workers run (port.go).
//   - View, its readers' (Pool.View): the workers' counters, progress,
//     work and span, the timeline and the live stream (view.go).
//
// A fourth side, crew, is the executors' own: the queues through which a
// worker passes from one executor to another, and the idle protocol
// (crew.go, idle.go). The sides split by caller rather than by data,
// because who calls a method is what says which goroutines it races with
// and which lock it may take. They are fields of the Pool, not pointers
// to other objects, so that what the workers read on their spawn path
// (the Port's advice, the crew's idle counts, the ending flag) costs one
// load from the pool, as it would from one struct.
//
// A task frame starts with a Header (state, kind, waiters, deque slot) that
// package tsys embeds in a typed frame holding the argument and result, so
// this package never sees argument or result types.
//
// # Spawning
//
// Spawn first asks NewTS's allowCCall (inline.Policy): are there at least
// K ready tasks in this worker's deque (K + Advice.Expose while other nodes
// want work)? If so the call runs inline, as an ordinary Go call. The question costs a decrement and a compare on the
// fast path (FastPath.Credit, in tsys's Spawn and Ctx.AllowCCall); the
// slow path (Ctx.AskSpawn) asks the policy exactly and
// grants credit sized to ~10 us of work, and a pop drops the credit so that
// a shrunken deque is noticed at once. A no stands until the next push. A fork
// chain, whose deque never holds K ready tasks, inlines once deepNesting of
// its tasks run nested on one stack while nobody wants work
// (deepchain.go). Otherwise the
// frame is pushed on the worker's deque (Ctx.Push), and a parked idle
// worker is woken if no other worker is already looking for work.
//
// # Waiting
//
// Get of a finished task returns its result. Get of a task still in this
// worker's deque pops and runs it here, after the tasks pushed above it,
// which this same stack of tasks spawned later, so none of them can depend
// on the waiting task (Ctx.Await). Get of a task running elsewhere
// (stolen, lent to another node) blocks: the executor links itself to the
// task's waiters, hands its worker to an executor that is ready to resume,
// or to a new one, and parks (Executor.block). When the task completes its
// waiters queue for a worker (crew.resume); an executor passes its worker
// to the longest-waiting of them each time it returns to its loop, and an
// idle worker is woken to do so. So:
//
//   - at most one executor holds a worker, and only its own goroutine writes
//     which worker it holds: workers move between executors through the
//     wake channel, so none is lost or held twice;
//   - a wait never leaves a worker idle (NewTS's non-blocking execution);
//   - every blocked task keeps its own goroutine stack, so a task is never
//     buried under an unrelated one, and stack depth is bounded by the
//     program's own nesting; goroutines number the workers plus the most
//     tasks that were blocked at once during the run: an executor that has
//     passed its worker on waits as a spare for the next hand-off instead
//     of ending, because a new goroutine grows its stack again, copy by
//     copy, to the depth of the tasks it runs (bench/README.md, "UTS T3 on
//     2 workers").
//
// # Joining
//
// Ctx.JoinForked is Await for a task whose result only one reader
// takes, once, before its task returns (tsys's Fork; fork.go gives the
// protocol that lets Fork's inlined fast path skip clearing the frame it
// reads, and the check that every fork is joined). When the task is still
// the newest in the joiner's
// deque, which is the common case, it is popped (Deque.PopIf) and run
// without publishing its result, and its frame goes back to the worker for
// the next spawn of its kind: no waiter can exist and nobody else reads it.
// A stolen one is awaited and its frame left to the garbage collector,
// because the thief's complete may still touch it after the done bit.
//
// # Idle workers
//
// An executor whose deque is empty steals the oldest task of random other
// workers, 2 x (workers-1) attempts a round; after a fruitless round it
// tells the cluster the node is hungry (Remote.Hungry). It keeps trying for
// ~50 us, yielding between rounds, then parks on its wake channel; a push
// wakes one parked worker when none is looking, as Go's own scheduler does,
// so an idle runtime takes no CPU and a busy one does not wake a crowd.
// In a pool of more workers than GOMAXPROCS, at most GOMAXPROCS look at
// once and the others park at once (parkAside), as Go bounds its spinning
// Ms: more lookers than cores only take turns, each round costs O(workers),
// and a crowd of them made a job's cost grow with the square of the
// workers (bench/README.md "Many workers"). idle.go names the transitions and gives the argument why no push goes
// unseen. The time a worker spends looking or parked is its idle time
// (Stats.IdleNanos); the rest of a run is busy time (Port.BusyTime), which a
// RateMeter turns into Load.Rate.
//
// # Sharing a node between jobs
//
// A node serving several jobs runs a pool per job, and its sharing policy
// sets how many of each pool's workers may run tasks (Port.SetShare,
// workershare.go): the others wait between tasks, off the CPU.
//
// # The cluster seam
//
// A cluster scheduler is a clusterpolicy.Policy, a pure state machine that
// package clusterpolicy defines with everything it exchanges (node ids,
// loads, member events, actions, advice, the rate meter), so that the
// policies, the simulator and membership depend on it, not on this
// package. Between events a policy gives Advice, which the engine
// publishes in this package's atomics for the workers: when asking the policy about
// a hungry worker could lead anywhere (HungryAfter), so that an idle
// worker's check costs one atomic load; and how many more ready tasks to
// keep stealable (Expose), the scheduler's say in allowCCall: a node that
// inlines every spawn while its peers starve has nothing to lend them.
//
// # Counters
//
// Stats are what this node's scheduler counts, per worker (View.WorkerStats,
// View.Live) or summed over the pool for a run (Pool.Run's result, which
// package tsys returns as tsys.Stats): spawns and inlined calls, tasks
// run, steals between the workers, waits, idle, busy and work time. What a
// node does for a job across nodes (tasks lent and borrowed, messages,
// requests for work, re-runs) package cluster counts (cluster.NetStats),
// and a cluster job's report holds both (cluster.JobStats).
//
// # Runs
//
// Pool.Run pushes the root task and starts one executor per worker; it
// ends when the root is done, a task panics (a TaskPanic naming the task,
// with its stack) or fails (Ctx.FailTask), or the context is
// cancelled. The first failure is the run's error: it sets the ending flag
// at once, so no task starts after it (the loop, AskSpawn, Await,
// JoinForked and Unfork check the flag), and only then cancels the run's
// context (context.go), which running tasks poll, and tells the cluster
// (Remote.Failed); a failure on another node reaches this pool through
// Port.Fail, which sets the same flag. Nor does a plain call that a spawn
// became start after it: an inlined spawn asks AskSpawn when its credit
// is spent, and a grant, sized on the pace of the last one, grows at
// most twofold a grant from 1, and is none for spawns coarser than
// maxStaleness, which each ask, so that a burst of fast spawns between
// long leaves (a recursion's descent) cannot earn credit for many of
// the leaves that follow it; and package
// tsys checks the flag (FastPath.Ending, one load) where the program's
// code runs next without a spawn: Task.Call, the second closure of a
// Join, the next chunk of a loop. Ending wakes every blocked
// executor without a worker, which unwinds its tasks (abortRun), and waits
// for every executor to exit: between runs no goroutine of the pool exists.
// Pool.Serve is a run without a root, for a node serving another node's job.
package sched
