// Package calibrate measures what tsys's costs are on this machine, for
// the advisor (tsys advise, package advise's models): what a message
// between two nodes costs, what a node's policy tick and gossip take of a
// core, and what a child costs when it is spawned as a task rather than
// called. Each measure runs the real pieces in this process, and none
// depends on getting a core within a short window: the machines tsys runs
// on are shared, so every figure is a median of repeated samples, and
// every wait is bounded by the caller's context and a timeout of seconds.
//
// # Messages: PingPong
//
// Two task transports (package internal/net/transport) on 127.0.0.1, configured as
// cluster.Start configures a node's (with the cluster key, if given, so
// that a keyed cluster is measured on its sealed path), bounce messages of
// several sizes back and forth; the payloads are random bytes, since the
// transport compresses larger frames and a compressible payload would
// measure the compressor. A message's one-way time is half its round
// trip. Fit fits one-way = Startup + PerByte x bytes to the medians of
// the sizes, by least squares of the errors relative to the times (a large
// message's noise is as large as a small one's whole time): Startup is
// Cesar et al.'s start-up cost mo and PerByte their cost per byte k
// (advise.MasterWorker).
//
// Over loopback both are the cost of the software path, the two
// processes' CPU and the kernel's, without a wire: between machines add
// the network's latency to Startup and its time per byte to PerByte.
//
// # A node's own upkeep: TickCost and GossipCost
//
// Every cluster.Config.TickEvery a node measures each job's load and hands
// it to the job's policy. TickCost runs that tick's pieces in this process
// (the process's CPU time, the pool's load and busy time, the meters, the
// policy's Tick and Advice under a lock), on a policy made from the
// --sched spelling that knows a number of peers, and the pool of a real
// runtime. PerTick is one job's tick; a node serving several jobs pays it
// for each. CPUFraction = PerTick / clusterpolicy.DefaultTickEvery is the
// share of one core the ticks take: the node's tick runs on a goroutine of
// its own, beside the workers, and takes that much from them.
//
// Memberlist runs beside the task transport, probing, gossiping and
// syncing state on its own timers. GossipCost counts the messages a node
// sends and receives per second from the timing membership gives
// memberlist (membership.Config.Timing, so the figures follow the Fast
// profile and --probe-interval), and charges each the measured Startup:
// CPUFraction is the share of a core gossip takes. It is an estimate, not
// a measurement: a message's start-up cost over loopback includes both
// ends' CPU and the kernel's, and a gossip message is as small as the
// smallest a ping-pong sends.
//
// # Tasks: SpawnCost
//
// A runtime of one worker runs one recursive tree (Fib: apps/fib's Fork
// and Join code, which the advise verb passes in, since calibration may
// not import the apps) with every fork a task and with every fork a plain call; the
// difference, per fork, is what a child costs spawned as a task rather
// than called: the hook cost of advise.MinGrain, which says how much work
// a task needs for that cost to stay a small share of it. One worker, so
// that nothing is stolen and the figure is the spawn and join alone. The
// tree grows until a run of tasks takes a fixed amount of CPU time, so a
// slow machine, or the race detector, gets a smaller tree rather than a
// longer calibration.
//
// # Timing
//
// Computation (a tick, a run of the tree) is timed by the CPU time the
// process spent, where the platform tells: on a shared machine the wall
// clock also counts the time others held the core. Messages are timed by
// the wall clock, since a message's time is mostly waiting: for the
// kernel, and for the other side to be scheduled, which is part of what
// it costs. Measure runs the measures one after another, never at once,
// so that one's CPU time is not another's.
//
// # Measure
//
// Measure runs them all and returns Costs, whose JSON (snake_case, times
// in nanoseconds) the advisor prints or keeps. A cost the user gives
// (Options.Link, PerTick, Spawn) is taken as it is and not measured: a
// calibration that fails, for want of CPU more often than for a fault,
// says what did not happen in how long, and what to do (retry, or for the
// ping-pong give its costs). Costs.Machine is what package advise takes.
package calibrate
