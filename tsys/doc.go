// Package tsys is the public API of the tsys task runtime.
//
// A program registers its parallel functions as tasks (Register, or
// RegisterErr for one that can fail). A task forks others with Fork and
// joins them with Forked.Join, Cilk's spawn and sync: a fork is a task
// that an idle worker, or another node, may take, or a plain call when
// enough tasks are ready already (load-based inlining). Run starts a root
// task on a Runtime and returns its result and counters (Example_fib):
//
//	var Fib *tsys.Task[int, int]
//
//	func init() { Fib = tsys.Register("fibonacci", fibonacci) }
//
//	func fibonacci(c *tsys.Ctx, n int) int {
//		if n < 2 {
//			return n
//		}
//		a := Fib.Fork(c, n-1)  // a T-call, or a C-call when enough tasks exist
//		b := fibonacci(c, n-2) // a plain call
//		return a.Join(c) + b
//	}
//
//	rt := tsys.New(tsys.Workers(4))
//	v, stats, err := tsys.Run(ctx, rt, Fib, 25)
//
// Spawn returns a Future instead (the T-system's T-value), which any task
// may read with Get, any number of times.
//
// The first error a task returns (RegisterErr), or its panic, or the
// cancellation of Run's context, fails the job: no task starts after it,
// the running ones see it through Ctx.Done, and Run returns it, as a
// *TaskError, a *TaskPanic, or an error that errors.Is finds
// context.Canceled (or DeadlineExceeded) and the context's cause in.
// Runs may overlap, from several goroutines or from inside a task (see
// Runtime), each failing alone. Tasks get
// their arguments by value: one whose types hold references stays on its
// node unless registered ByValue (see Register), and CheckCopies, or
// TSYS_CHECK_COPIES=1, tests that claim on one node, at the price of
// copies and no inlining for those tasks only.
//
// # Which values cross nodes
//
// A task's argument and result cross nodes through a codec chosen at
// Register: raw bytes for []byte, encoding/binary for fixed-size values,
// the type's own MarshalBinary and UnmarshalBinary if it has them, a
// presence byte and the pointee for a pointer (nil arrives as nil), and
// encoding/gob for the rest. It carries booleans, numbers, strings, and
// arrays, slices, maps, pointers and structs of those. It does not carry
// channels, functions, interfaces, unsafe.Pointer, unexported struct
// fields (gob would drop them without a word), or recursive types (a type
// that holds itself through a pointer, slice or map: a value of it may
// share a node or hold a cycle, which a copy would duplicate or never
// finish); a type that marshals itself is carried whatever it holds. A
// task whose types the codec does not carry stays on its node
// (Task.WhyLocal says where and what to do). Inside a value, gob's rules
// hold: a pointer to a zero value arrives as nil, an empty slice or map as
// nil, and a nil pointer inside a slice or map cannot be sent (the task
// then runs where it is).
//
// Flat work is a loop. RegisterRange registers one whose body runs a
// whole piece [lo, hi) of its range as a plain Go loop, its pieces' results
// combined in index order; its pieces may run on other nodes, as tasks do.
// The runtime splits it: it cuts off pieces as other workers or nodes
// become hungry (split.go), so no grain is chosen, and Grain fixes the
// split where the rounding of a floating-point sum must repeat. For work
// that stays on its node, closures need no registration: Join (rayon's
// join), For, ForEach, Map, Reduce, Fold, Sum, Min and Max run inside any
// task, and Do runs a closure as a job's root (Example_reduce):
//
//	v, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) float64 {
//		return tsys.Reduce(c, 0, len(xs), 0, func(_ *tsys.Ctx, lo, hi int) float64 {
//			s := 0.0
//			for _, x := range xs[lo:hi] {
//				s += math.Sqrt(x)
//			}
//			return s
//		}, func(a, b float64) float64 { return a + b })
//	})
//
// When only the spawning task reads the result, once, Fork and Forked.Join
// say so (Cilk's spawn and sync): the runtime then reuses the task's frame
// as soon as it is joined, where a Future's frame is left to the garbage
// collector, because copies of a future may be read later by anyone. The
// apps fork, which costs less (BenchmarkForkJoin against
// BenchmarkSpawnGet).
//
// Fork's fast path is inlined into the task function (fork.go), so a fork
// the inlining policy turns into a call costs a decrement and an indirect
// call; in exchange every Forked must be joined before its task returns.
// Spawn cannot be inlined by Go (a Future's frame must be taken out at
// once), so an inlined spawn still costs a call. Task functions of the
// finest grain are registered by the name of their fast clone, which go
// generate writes (cmd/tsysclone): it asks the question itself with
// Ctx.AllowCCall, which is inlined, and runs the body as plain Go calls
// when the answer is yes: Cilk's fast clone.
//
// How the pieces fit: package sched holds the deques, the workers and
// executors, and the scheduler policy interface; package inline holds the
// load-based inlining policy that Spawn consults; this package turns typed
// Go functions into the scheduler's untyped task frames.
package tsys
