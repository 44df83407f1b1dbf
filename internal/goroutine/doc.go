// Package goroutine tells goroutines apart, for the scheduler's check that
// a task's Ctx is used only by the goroutine that runs the task
// (sched.Ctx). Go gives a program no goroutine identity on purpose, and
// this package is no invitation to goroutine-local state: it answers one
// question, "is this the same goroutine?", on the paths that are already
// slow (a spawn that asks the inlining policy, a join that waits), where a
// Ctx handed to another goroutine would otherwise corrupt a deque.
//
// Current returns an identity that no other live goroutine has: the
// address of the runtime's descriptor of the calling goroutine. A
// goroutine's descriptor is reused after it exits, so an identity is only
// good while its goroutine lives; an executor's lives as long as its run.
// Where the architecture has no implementation (Supported is false),
// Current returns 0 and the check it serves is off.
package goroutine
