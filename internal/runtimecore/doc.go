// Package runtimecore is the runtime beneath package tsys: the pools of
// workers a runtime runs jobs on, the options they were made with, and
// where each run runs (the main pool, a spare pool, or solo on its
// caller's goroutine, in turns). It knows no argument or result type: a
// run is a sched.Header, which tsys embeds in its typed frames.
//
// Package tsys is a typed facade over it: tsys.Runtime is this package's
// Runtime under its public name (a defined type of the same struct), so a
// *tsys.Runtime and a *runtimecore.Runtime convert into each other at no
// cost. The layers that must reach beneath the public surface import this
// package, never tsys: the cluster layer drives a runtime's main pool
// (internal/cluster), the command line records timelines and task trees
// on it and hands a cluster node's runtime to a program's job as a
// *tsys.Runtime (cli), and calibration times runs on it
// (internal/calibrate). internal/layering holds them to it.
package runtimecore
