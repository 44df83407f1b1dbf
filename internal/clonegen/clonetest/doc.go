// Package clonetest holds task functions in the shapes real task code
// takes, cloned by go generate (internal/clonegen): several forks joined in
// any order, forks in loops, results in expressions, early returns, Spawn
// and Get, Call, Ready. Its tests run each clone under every
// inlining policy, where every fork is a task, some are or none is, and
// check it against the serial answer.
package clonetest

//go:generate go run github.com/tsys-go/tsys/cmd/tsysclone
