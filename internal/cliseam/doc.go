// Package cliseam is what the tsys command and the laboratory reach of
// package cli that a user's program has no use for: checking a run's
// command line without running it (tsys bench), a verb that takes flags
// and nothing else, and the shape of `jobs --json`. It sits under
// internal/ so that cli's exported surface stays the few names a program
// and its tests need, and the compiler keeps a user's program out of the
// rest.
package cliseam
