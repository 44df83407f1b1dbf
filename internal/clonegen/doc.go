// Package clonegen writes the fast clone of a task function: the code
// cmd/tsysclone (run by go generate) puts beside a package's natural task
// code.
//
// # What a clone is
//
// A task function written the natural way forks its subtasks with
// Task.Fork (or Spawn) and joins them with Join (or Get). Each fork asks
// the inlining policy whether to run the subtask as a plain call, and even
// then pays for what a fork is: a Forked in the frame, an indirect call of
// the task function, the Join's test. Cilk's compiler writes a second
// version of every spawning function, the fast clone, in which a spawn is a
// call; NewTS's T++ translator did the same. clonegen writes it for tsys:
//
//	var Fib *tsys.Task[int, int64]
//
//	// In init: the clone refers to Fib, which a var's initializer cannot.
//	func init() { Fib = tsys.Register("fib", fibClone) } // fibClone: generated from fib
//
//	func fib(c *tsys.Ctx, n int) int64 {
//		if n < 2 {
//			return int64(n)
//		}
//		a := Fib.Fork(c, n-1)
//		b := fib(c, n-2)
//		return a.Join(c) + b
//	}
//
// becomes, in the generated file,
//
//	func fibClone(c *tsys.Ctx, n int) int64 {
//		if n < 2 {
//			return int64(n)
//		}
//		if !c.AllowCCall() {
//			return fibNatural(c, n) // fib itself: its forks make tasks
//		}
//		a := fibClone(c, n-1)
//		b := fibClone(c, n-2)
//		return a + b
//	}
//
// One question per call decides for every fork of that call: yes (enough
// tasks are ready) runs the body with each Fork, Spawn and Call a plain
// call of a clone and each Join or Get the value itself, with no Forked
// left in the frame; no runs the natural function, whose forks ask again
// one by one and make tasks. Each clone asks at its own entry, so a worker
// whose deque runs short starts making tasks again within one call. Leading
// guards (an if that returns, with no call in its condition and no fork in
// its body) run before the question, so a leaf of the recursion asks
// nothing, as it asks nothing in the natural code.
//
// # What is cloned, and what is refused
//
// A function foo is cloned when the package registers fooClone
// (tsys.Register(name, fooClone)) and declares foo with the signature of a
// task, func(c *tsys.Ctx, a A) R. The clone turns into a value every
// Forked or Future the function holds: locals, arrays and slices of them,
// and what append, indexing and slicing make of those. It refuses, with a
// message naming the line, what it cannot prove stays within the call: a
// Forked or Future passed to a function, returned, stored outside a local,
// compared, or captured by a closure; a fork inside a closure or a go or
// defer statement; a fork of a task with no clone in the package. The
// generated file is checked in; TestGeneratedFilesAreCurrent fails when
// one is stale.
package clonegen
