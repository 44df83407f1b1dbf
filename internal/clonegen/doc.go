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
// # Closure forms
//
// tsys.Both, Pair, For and Fold take closures, which escape to the heap:
// each call makes them, and every variable they write, even when the form
// finds enough tasks ready and runs them here as plain calls. In a clone,
// each such form whose closures the generator can prove safe asks the
// question first, and makes its closures only on a no:
//
//	func sum(c *tsys.Ctx, lo, hi int) uint64 {
//		if hi-lo == 1 {
//			return leaf(lo)
//		}
//		mid := lo + (hi-lo)/2
//		a, b := tsys.Pair(c,
//			func(c *tsys.Ctx) uint64 { return sum(c, lo, mid) },
//			func(c *tsys.Ctx) uint64 { return sum(c, mid, hi) })
//		return a + b
//	}
//
// becomes, in sumClone,
//
//	var a, b uint64
//	if c.AllowCCall() {
//		a = sumClone(c, lo, mid)
//		b = sumClone(c, mid, hi)
//	} else {
//		a, b = tsys.Pair(c,
//			func(c *tsys.Ctx) uint64 { return sumClone(c, lo, mid) },
//			func(c *tsys.Ctx) uint64 { return sumClone(c, mid, hi) })
//	}
//
// On a yes the bodies run in order, with the Ctx of the code around the
// form (no closure body is running then), as the form itself runs them on
// a yes; a body with an early return, a defer, a label or a recover is
// called as the literal it is, which Go inlines where it can and which
// does not escape. On a no the form runs as written, its closures given
// copies of the variables they write (and of those the function assigns
// elsewhere), declared on that path and copied back after the form: a
// variable a closure captures by reference lives on the heap from its
// declaration, on both paths. A variable whose address is taken, or that
// is sliced or has a field or method selected, stays captured: a copy
// would not keep what points into it; so does one that a closure outside
// the form uses, which would read and write the variable, not the copy,
// or that a goroutine a closure starts uses, which may outlive the form;
// -v says so.
//
// A For or Fold runs its body once over the whole range on a yes: one
// piece, which its contract allows. But the form itself asks again between
// chunks and cuts pieces for idle workers, which one plain call cannot,
// so a loop is rewritten only if its body asks again: it calls a clone,
// forks a task, or runs a closure form. A loop with options (Grain,
// Factoring) is left as written, its pieces fixed by them.
//
// A function that is no task gets a clone when the package names it: a
// function sum that takes a *tsys.Ctx, among any other parameters, is
// cloned as sumClone when the package (its tests included) calls
// sumClone. Its clone asks nothing at its entry; each form asks its own
// question, and each call of a function the package clones is a call of
// its clone, so the recursion stays in the clones. A task's fast clone
// rewrites its closure forms the same way.
//
// A form is left as written, and tsysclone -v says why on its line, when
// a closure is no func literal (the generator cannot see what it runs),
// uses a Ctx captured from around the form (which panics inside a body),
// or the form's Ctx is not the parameter of the function or closure it is
// in; when the form is in a go or defer statement (or a closure one
// runs), or is not a statement of its own in a block, or, for Pair and
// Fold, not the whole right side of an assignment to names, a var or a
// return (the rewrite would move it before the statement's other parts);
// when a Fold's identity or combine is a call; and when the form is
// already in the else of an if that asks.
// A function that runs closure forms but whose clone nothing calls gets a
// note saying to call it.
//
// # What is cloned, and what is refused
//
// A task function foo is cloned when the package registers fooClone
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
