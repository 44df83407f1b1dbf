// Package cputime reads the CPU time this process has used. A node's rate
// of useful work (clusterpolicy.Load.Rate) counts its workers' busy time only as
// far as the CPU really ran them: a worker that shares its core with a
// competing process is busy all the time but does half the work.
package cputime
