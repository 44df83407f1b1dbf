//go:build !tsys_nocounters

package sched

// counting keeps the per-worker counters of Stats on the spawn, run and
// steal paths. Building with -tags tsys_nocounters drops them, to measure
// what they cost (bench/README.md, "What profiling costs"); idle and
// busy time, and tasks_run, which the rate meters need, stay.
const counting = true
