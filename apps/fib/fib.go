package fib

import (
	"fmt"

	"github.com/tsys-go/tsys/tsys"
)

// Task is fib as a registered task: fib's natural code, registered by
// its fast clone's name. go generate writes fibClone (tsys_clone.go) from
// fib, the body with each Fork a plain call, which runs while enough tasks
// are ready (package internal/clonegen).
var Task *tsys.Task[int, int64]

func init() { Task = tsys.Register("fib", fibClone) }

//go:generate go run github.com/tsys-go/tsys/cmd/tsysclone

func fib(c *tsys.Ctx, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	a := Task.Fork(c, n-1)
	b := fib(c, n-2)
	return a.Join(c) + b
}

// Forking is fib's natural code registered as it is, with no fast clone:
// the code of the README's first example, which the benchmarks compare
// with Task. Fork's fast path is inlined into it, so an inlined fork costs
// a decrement and an indirect call more than Serial's call.
var Forking *tsys.Task[int, int64]

func init() { Forking = tsys.Register("fib.forking", forking) }

func forking(c *tsys.Ctx, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	a := Forking.Fork(c, n-1)
	b := forking(c, n-2)
	return a.Join(c) + b
}

// Plain is fib written with Spawn alone, with no fast clone: the form the
// spawn benchmarks measure.
var Plain *tsys.Task[int, int64]

func init() { Plain = tsys.Register("fib.plain", plain) }

func plain(c *tsys.Ctx, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	a := Plain.Spawn(c, n-1)
	b := Plain.Call(c, n-2)
	return a.Get(c) + b
}

// Serial is the plain recursive Go version: the T_S baseline.
func Serial(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	return Serial(n-1) + Serial(n-2)
}

// Exact computes fib(n) by iteration, to verify a run.
func Exact(n int) int64 {
	a, b := int64(0), int64(1)
	for i := 0; i < n; i++ {
		a, b = b, a+b
	}
	return a
}

// MaxN is the largest n whose result fits in an int64.
const MaxN = 92

// Validate checks n.
func Validate(n int) error {
	if n < 0 || n > MaxN {
		return fmt.Errorf("fib: -n %d out of range: want 0..%d", n, MaxN)
	}
	return nil
}
