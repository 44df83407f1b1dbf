// Package advise holds the models behind tsys's advice on a run: how many
// nodes are worth it, how fine tasks should be, and how often balancing
// should act. Each model is a pure function of measured costs, written as
// the paper that gives it states it (shared/KNOWLEDGE.md):
//
//   - MasterWorker: Cesar et al.'s time of one master/worker iteration,
//     its optimum worker count, efficiency and performance index (§3);
//   - BalancePeriod and MinGrain: Siegell and Steenkiste's rules for the
//     balancing period and for hooks that cost under 1% of the work
//     between them (§2);
//   - Greedy: the bounds any greedy scheduler meets, from a program's work
//     T1 and span T∞ (tsys run --workspan measures both).
//
// The models take their inputs from calibration (a recorded run, the
// transport's ping-pong) and know nothing of sockets or clocks, so the
// advisor, its tests and the simulator evaluate the same formulas.
//
// # The advisor
//
// Advise answers for a whole program what the closed forms answer for a
// flat split. Its inputs are a Machine (what calibration measured: a
// message's start-up and per-byte cost, a policy tick, gossip's share, a
// spawn's cost over a call) and Options, each a way of running the
// program (a value of its grain flag, or an inlining threshold) with the
// task tree a run on one worker recorded at it (tsys run --record-tree).
// It replays every option's tree in package sim, on every node count
// asked about, under every scheduler, with the calibrated costs; then it
// recommends the most nodes whose predicted efficiency stays at the level
// asked for, and the fastest option and scheduler on that many. The
// closed forms give the reasons beside it: the greedy bound from the
// tree's work and span, Siegell's least grain and balancing period,
// Cesar's optimum for the program split flat once.
//
// A recorded tree needs two corrections before it is replayed. Scale sets
// its total to T1 as a run without the recorder measured it, since the
// recorder's bookkeeping inflates every frame alike. Fold makes each
// subtree whose whole work is under a message's cost one task: such a
// subtree is never worth moving between nodes, and the folded tree of a
// program with a hundred million tiny tasks replays in well under a
// second, where the whole one would take the simulator minutes for each
// of the dozens of configurations the advisor weighs.
//
// Command is the verb that does all this from a program's command line:
// `tsys advise APP`, and `PROG advise PROGRAM` in a program that adds it
// to its cli.Config's Commands, calibrate and call Advise; `tsys
// advise-check` holds its advice to real runs.
package advise
