// Package clonetest holds task functions in the shapes real task code
// takes, cloned by go generate (internal/clonegen): several forks joined in
// any order, forks in loops, results in expressions, early returns, Spawn
// and Get, Call, Ready; and functions written with the
// closure forms (Pair, Both, For, Fold) and no cutoff, whose clones go
// generate writes with the cutoff (forms.go, shapes.go). Its tests run
// each clone under every inlining policy, where every fork and form is a
// task, some are or none is, and check it against the serial answer or
// the function as written.
package clonetest

//go:generate go run github.com/tsys-go/tsys/cmd/tsysclone
