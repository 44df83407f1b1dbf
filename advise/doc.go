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
package advise
