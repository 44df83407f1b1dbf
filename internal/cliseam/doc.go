// Package cliseam is what the tsys command and the laboratory reach of
// package cli that a user's program has no use for: checking a run's
// command line without running it (tsys bench), the shape of `jobs
// --json` (the tsys command's cluster tests decode it), and the inlining
// policy a program's run gets by default (advise, bench). It sits under
// internal/ so that cli's exported surface stays the few names a program
// and its tests need, and the compiler keeps a user's program out of the
// rest. It does not import cli, which imports it: cli hands it the check
// at init.
package cliseam
