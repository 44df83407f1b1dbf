// Package tsys is the public API of the tsys task runtime: fine-grained
// recursive and loop parallelism for plain Go functions, on one machine or
// a cluster. docs/API.md lists every name with its errgroup, rayon or Cilk
// equivalent.
//
// A program registers its parallel functions as tasks (Register, or
// RegisterAction for one with no result). A task forks others with Fork
// and joins them with Forked.Join, Cilk's spawn and sync: a fork is a task
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
// # What may cross nodes, and what stays
//
// A name that begins with Register makes work that may cross nodes: a
// registered task or loop travels as its name and its encoded argument,
// when its types allow (see Register). Everything else runs in this
// process: closures cannot be sent, so Do, Both, Pair, For and Fold need no
// registration and may capture anything, including memory they write. Do
// runs a closure as a job's root (Example_reduce):
//
//	v, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) float64 {
//		return tsys.Fold(c, 0, len(xs), func() float64 { return 0 },
//			func(_ *tsys.Ctx, lo, hi int, s float64) float64 {
//				for _, x := range xs[lo:hi] {
//					s += math.Sqrt(x)
//				}
//				return s
//			}, func(a, b float64) float64 { return a + b })
//	})
//
// Each family has one body shape. Recursive work is a function of a Ctx
// and an argument. Flat work is a body over a piece [lo, hi) of a range,
// which it runs as a plain Go loop: For's for effects, and Fold's, which
// folds the piece into an accumulator, for a result. The runtime splits
// the range: it cuts off pieces as other workers or nodes become hungry
// (split.go), so no grain is chosen, and Grain fixes the split where the
// rounding of a floating-point sum must repeat. Every reduction takes its
// identity as a function, called once per piece. RegisterFold is Fold's
// shape with an environment, for a loop whose pieces may cross nodes.
// Where Go cannot make a result optional, a form comes twice: Both and
// Pair, For and Fold, RegisterAction and Register. Go makes a closure
// that may become a task on the heap at every call, so a recursion split
// with Both or Pair down to tiny leaves pays for its closures each time
// (Both's doc says what they cost); at a fork's price, such a recursion
// either uses Fork of a registered task, or runs go generate
// (cmd/tsysclone), which writes the cutoff for Both and Pair.
//
// # When a job fails
//
// Any body fails the job with Ctx.Fail(err), errgroup's first error; a
// panic fails it too, and so does the cancellation of Run's context. No
// task starts after it, the running ones see it through c.Context(), and
// Run returns it, as a *TaskError, a *TaskPanic, or an error that
// errors.Is finds context.Canceled (or DeadlineExceeded) and the context's
// cause in. Runs may overlap, from several goroutines or from inside a
// task (see Runtime), each failing alone.
//
// # Testing that tasks share no memory
//
// Tasks get their arguments by value: one whose types hold references
// stays on its node unless registered ByValue (see Register). The
// environment variable TSYS_CHECK_COPIES=1 tests that claim on one node,
// for every runtime the program makes (New reads it):
//
//	TSYS_CHECK_COPIES=1 go test ./...
//
// Every task that may cross nodes (Task.WhyLocal is nil) then runs on a
// copy of its argument and gives back a copy of its result, even on one
// node, as it would on another: a program whose tasks change memory
// through their arguments gives its wrong answer in its own tests instead
// of only on a cluster (Example_checkCopies). A spawn of such a task is
// then always a task (never inlined), so that every one is copied;
// everything else (tasks that stay on their node, and the closure forms
// Both, Pair, For and Fold) is inlined as usual, so a test suite runs at
// about its usual speed; their spawns only ask the inlining policy each
// time rather than on credit, a few nanoseconds more each
// (BenchmarkTreeSumCheckCopies). Ctx.AllowCCall answers no under the
// check, since the code it guards may run a lendable task's body as a
// plain call. A copy larger than 1 MB, or slower than 1 ms, is reported
// once per task (log/slog, at level Warn): every task of that kind pays
// it. TSYS_CHECK_COPIES=0, or no value, leaves the check off; any value
// but a boolean turns it on, with a warning.
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
// How the pieces fit: internal/sched holds the deques, the workers and
// executors, and the scheduler policy interface; package inline holds the
// load-based inlining policy that Spawn consults; this package turns typed
// Go functions into the scheduler's untyped task frames. A program imports
// this package and cli; the rest of the module is the runtime's own
// (internal/) or the laboratory's (apps, sim, advise, bench).
package tsys
