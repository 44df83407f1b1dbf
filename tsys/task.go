package tsys

import (
	"errors"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/typedesc"
)

// Task is a registered task function with argument type A and result type R.
// Calling it through Spawn makes a task that any worker, and later any node,
// may run; a task crosses nodes as its registered name and its encoded
// argument, never as a closure.
//
// A *Task is nil until Register's result is assigned to it: a variable
// used before the init function that registers it has run. Run then
// returns an error saying so; Fork, Spawn and Call panic, and the run's
// *TaskPanic says that the task was nil (a check before the panic would
// cost every fork).
type Task[A, R any] struct {
	kind    sched.Kind
	fn      func(*Ctx, A) R
	args    codec[A]
	results codec[R]
	// paths are fn (a C-call on credit) and t.spawnSlow (the slow path),
	// indexed by Credit's top bit (sched.Spent): stored once, since a
	// method value made at each spawn would be a closure allocation.
	paths [2]func(*Ctx, A) R
	// local says why the task may not cross nodes; nil if it may.
	local error
	// costly warns once of a copy that costs much under the check of
	// copies (TSYS_CHECK_COPIES).
	costly copyCost
}

// cell is the part of a frame a future points to: the scheduler's header
// and the result. Keeping the result at a fixed offset lets Future depend
// on R only.
type cell[R any] struct {
	sched.Header
	res R
}

// frame is a spawned task: header, result, argument. Header is its first
// field, so a *sched.Header handed back by the scheduler is the frame's
// address.
type frame[A, R any] struct {
	cell[R]
	arg A
}

// frameSlabSize frames are allocated at once: a spawn then costs a slice
// step instead of a heap allocation (BenchmarkSpawnGet; bench/README.md,
// "Figures behind the code's constants"). The price is that a slab stays
// alive while any future into it does.
const frameSlabSize = 128

type frameSlab[A, R any] struct{ free []frame[A, R] }

// Register makes fn a task function under a stable name. Call it from a
// package's init function (a package-level variable whose function refers
// back to it would be an initialisation cycle):
//
//	var Fib *tsys.Task[int, int64]
//
//	func init() { Fib = tsys.Register("fib", fib) }
//
// Every process of a cluster runs the same binary, so names resolve to the
// same functions everywhere. Registering a name twice panics: it is a
// programming error, found at start-up.
//
// # Which tasks cross nodes
//
// A task that runs on another node gets a copy of its argument, and its
// caller gets a copy of its result: the T-system passes values, not
// memory. A task that changes memory through its argument (sorts a slice
// in place, fills a map) would change the copy, and its caller would
// silently read the old memory. So a task crosses nodes only when the
// codec carries both its types (the package doc's "Which values cross
// nodes") and they either hold no references or the program declares
// them values with ByValue. Register accepts a task of any types: one the
// codec cannot carry (a recursive type, a channel, an unexported field)
// stays on its node, and WhyLocal names the field at fault and the
// remedy. References are pointers, slices (also []byte), maps,
// channels, functions and interfaces, anywhere inside the type; strings
// are values, and so is a type that marshals itself (BinaryMarshaler and
// BinaryUnmarshaler, as time.Time does), whose author chose what a copy
// carries. A task that may not cross stays on its node: its program
// still gives the right answer, on that node's workers alone.
//
// Declare ByValue when the task only reads what its argument refers to
// and returns memory nobody else holds, and check the claim by running
// the program's tests with the environment variable TSYS_CHECK_COPIES=1,
// under which every such task gets copies on one node too, so a
// dependence on shared memory shows up as a wrong answer. The check costs
// little beside those tasks' copies (each runs on copies, never as a
// plain call; the package's doc, "Testing that tasks share no memory"),
// so a test suite can run with it always.
//
// # When a task fails
//
// A task fails the job with Ctx.Fail(err), as errgroup's first error
// does: no task starts after it, on any node; the tasks running see it
// through c.Context(); and Run returns it as a *TaskError naming the
// task, through which errors.Is and errors.As reach the error itself (on
// the node where it happened: from another node it arrives as its text,
// in a *ErrRemote). A task that fails returns nothing to its caller: the
// caller is unwound too. A panic fails the job in the same way, as a
// *TaskPanic.
//
// No task starts after the failure, and no plain call that a spawn
// became either: once the job has failed or been cancelled, Fork, Spawn,
// Call, Both, Pair, and a loop's next chunk unwind the calling task instead of
// starting their child, so a recursion stops within the time of the
// leaves running then, as the tasks do. A leaf that runs long polls
// c.Context().Done() to stop sooner.
//
// # Which leaves run before the failure
//
// Unlike errgroup's goroutines, which start in the order the program
// makes them, a fork's child does not run where the fork is written: a
// fork that becomes a task runs after the code that follows it (it
// waits in the deque for a thief or for its Join), and one the inlining
// policy turns into a plain call runs at once (Fork's Order). So in
// "a := T.Fork(c, left); b := T.Call(c, right)" the right half runs
// first while the fork is a task, and a failure in the first leaf of the
// left half is found after most of the right half has run. A search that
// must fail fast keeps the program's order by asking first, as Fork's
// Order shows: the halves in order as plain calls while enough tasks are
// ready, and otherwise the later half forked and the earlier one called:
//
//	func search(c *tsys.Ctx, r Range) int {
//		if r.Hi-r.Lo <= 1024 {
//			return scan(c, r) // a leaf: Fail here on an error
//		}
//		mid := r.Lo + (r.Hi-r.Lo)/2
//		left, right := Range{r.Lo, mid}, Range{mid, r.Hi}
//		if c.AllowCCall() {
//			a := Search.Call(c, left)
//			return a + Search.Call(c, right)
//		}
//		b := Search.Fork(c, right) // waits for a thief, or for the Join
//		a := Search.Call(c, left)  // runs now: its first leaf is the first
//		return a + b.Join(c)
//	}
//
// Polling c.Context().Err() between the leaves of a long loop bounds the rest
// (bench/README.md, "A failure stops inlined work").
func Register[A, R any](name string, fn func(*Ctx, A) R, opts ...TaskOption) *Task[A, R] {
	if fn == nil {
		panic("tsys.Register: a task needs a function")
	}
	noteTaskFunc(fn, name)
	return register(name, fn, opts)
}

// TaskOption changes how a registered task is treated.
type TaskOption struct{ set func(*taskOptions) }

type taskOptions struct {
	byValue bool
	own     bool // the runtime's own task (sched.Kind.Library)
}

// own marks a task the runtime registers for itself, not the program.
func own() TaskOption { return TaskOption{func(o *taskOptions) { o.own = true }} }

// ByValue declares that the task's argument and result may be copied: the
// task only reads the memory its argument refers to, and its result refers
// to memory nobody else changes. It lets a task whose types hold
// references (a slice to sum, a pointer to read-only parameters) run on
// other nodes; see Register. TSYS_CHECK_COPIES=1 tests the claim.
func ByValue() TaskOption { return TaskOption{func(o *taskOptions) { o.byValue = true }} }

// RegisterAction makes fn a task function with no result under a stable
// name, as Register does for one with a result: a task run for what it
// does (writes a file, sends a message, fills memory it owns). Its
// Forked.Join, Future.Get and Call return struct{}, which a program
// ignores. Register's rules hold: its name, which tasks cross nodes (an
// action whose argument refers to memory stays on its node, since what it
// writes there would be lost), and how it fails (Ctx.Fail). An action
// lent to another node may run twice: its lender starts it again when
// that node falls silent (cut off, stopped) or is declared dead, and the
// first to finish counts. One that acts outside its node, as a file
// written or a message sent, should do so idempotently.
//
//	var Render = tsys.RegisterAction("render", func(c *tsys.Ctx, t Tile) {
//		writeTile(t, shade(t))
//	})
func RegisterAction[A any](name string, fn func(*Ctx, A), opts ...TaskOption) *Task[A, struct{}] {
	if fn == nil {
		panic("tsys.RegisterAction: a task needs a function")
	}
	noteTaskFunc(fn, name)
	return register(name, func(c *Ctx, a A) struct{} {
		fn(c, a)
		return struct{}{}
	}, opts)
}

func register[A, R any](name string, fn func(*Ctx, A) R, opts []TaskOption) *Task[A, R] {
	var o taskOptions
	for _, opt := range opts {
		if opt.set != nil { // the zero TaskOption changes nothing
			opt.set(&o)
		}
	}
	t := &Task[A, R]{fn: fn, args: newCodec[A](), results: newCodec[R]()}
	t.paths = [2]func(*Ctx, A) R{fn, t.spawnSlow()}
	t.kind = sched.Kind{Name: name, Run: t.run(), Library: o.own}
	if t.local = whyLocal[A, R](t, o); t.local == nil {
		t.kind.Codec = wireCodec[A, R]{t}
		t.kind.Types = taskTypes[A, R]()
	}
	if err := sched.RegisterKind(&t.kind); err != nil {
		panic("tsys.Register: " + err.Error())
	}
	return t
}

// whyLocal says why the task must stay on its node, or nil if it may
// cross (see Register).
func whyLocal[A, R any](t *Task[A, R], o taskOptions) error {
	argErr := t.args.check()
	if reflect.TypeFor[A]() == reflect.TypeFor[R]() {
		// One type, one reason.
		if argErr != nil {
			return argErr
		}
	} else if err := errors.Join(argErr, t.results.check()); err != nil {
		return err
	}
	if o.byValue {
		return nil
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[A](), reflect.TypeFor[R]()} {
		if path := referenceIn(typ); path != "" {
			return fmt.Errorf("type %v holds a reference (%s): a copy on another node would not share its memory; register the task with tsys.ByValue() if it only reads it", typ, path)
		}
	}
	return nil
}

// taskTypes describes a task's types for the nodes of a job to compare
// (sched.Kind.Types).
func taskTypes[A, R any]() string {
	return "func(" + typedesc.Of(reflect.TypeFor[A]()) + ") " + typedesc.Of(reflect.TypeFor[R]())
}

// WhyLocal says why the task's tasks stay on their node, or returns nil
// if they may run on others.
func (t *Task[A, R]) WhyLocal() error {
	if t == nil {
		return &nilTaskError{method: "WhyLocal"}
	}
	return t.local
}

// wireCodec is a task's sched.Codec: its argument and result through the
// task's codecs (codec.go), in the task's frame.
type wireCodec[A, R any] struct{ t *Task[A, R] }

func (w wireCodec[A, R]) EncodeArg(h *sched.Header) ([]byte, error) {
	return w.t.args.enc(&(*frame[A, R])(unsafe.Pointer(h)).arg)
}

func (w wireCodec[A, R]) NewFromArg(b []byte) (*sched.Header, error) {
	f := &frame[A, R]{}
	if err := w.t.args.dec(b, &f.arg); err != nil {
		return nil, fmt.Errorf("task %q: decoding its argument: %w", w.t.kind.Name, err)
	}
	f.Init(&w.t.kind)
	return &f.Header, nil
}

func (w wireCodec[A, R]) EncodeResult(h *sched.Header) ([]byte, error) {
	return w.t.results.enc(&(*frame[A, R])(unsafe.Pointer(h)).res)
}

func (w wireCodec[A, R]) DecodeResult(h *sched.Header, b []byte) error {
	if err := w.t.results.dec(b, &(*frame[A, R])(unsafe.Pointer(h)).res); err != nil {
		return fmt.Errorf("task %q: decoding its result: %w", w.t.kind.Name, err)
	}
	return nil
}

// Spawn starts fn(a) as a task and returns a future of its result (a T-call).
// If the inlining policy answers that enough ready tasks already exist, it
// runs fn(a) at once instead, as a plain call (a C-call), and returns a
// ready future; that path does not allocate. Spawn is Fork's fast path plus
// what a Future's freedom costs: its frame is taken out of Spawned at once
// (sched.Executor.TakeSpawned), since a Future need never be read, and
// that does not fit Go's inlining budget; Fork does (fork.go).
func (t *Task[A, R]) Spawn(c *Ctx, a A) Future[R] {
	if checkForks {
		c.sched().Check() // before the decrement, which would race
	}
	c.fast.Credit--
	v := t.paths[(c.fast.Credit|uint(c.fast.Ending.Load()))>>sched.Spent](c, a)
	if c.fast.Spawned == c.fast.Token {
		return Future[R]{v: v}
	}
	return Future[R]{c: (*cell[R])(unsafe.Pointer(c.sched().TakeSpawned()))}
}

// spawnSlow is the slow path of a spawn (paths[1]), which asks
// allowCCall; a C-call runs fn here, a T-call pushes a frame: one that a
// Join gave back if the worker keeps one (any spawn may use it, only a
// Fork's is given back), else a new one.
//
// It and run are closures with the body inside, not method values: the
// method value of a generic method is a closure that calls the method,
// with its dictionary, so every spawn and every task run paid a call
// more.
func (t *Task[A, R]) spawnSlow() func(*Ctx, A) R {
	return func(c *Ctx, a A) R {
		// Not c.sched(): Go does not inline it here, inside a closure
		// of generic code.
		x := (*sched.Ctx)(unsafe.Pointer(c))
		h, ccall := x.AskSpawn(&t.kind)
		if ccall {
			return t.fn(c, a)
		}
		f := (*frame[A, R])(unsafe.Pointer(h))
		if f == nil {
			f = t.newFrame(x.Worker())
		}
		f.arg = a
		x.Push(&f.Header)
		var zero R
		return zero
	}
}

// aborted unwinds a task whose job has failed or ended (sched.Aborted).
var aborted = sched.Aborted()

// Call runs fn(a) directly, like an ordinary function call; but once the
// job has failed or been cancelled it does not run fn and unwinds the
// calling task instead, as a Fork would: nobody will read its result, and
// the work it would start is the work a failure must stop.
func (t *Task[A, R]) Call(c *Ctx, a A) R {
	c.stopIfEnded()
	return t.fn(c, a)
}

// run is the scheduler's entry into a frame of this task (Kind.Run), a
// closure for the reason spawnSlow is.
func (t *Task[A, R]) run() func(*sched.Header, *sched.Ctx) {
	return func(h *sched.Header, x *sched.Ctx) {
		f := (*frame[A, R])(unsafe.Pointer(h))
		if x.Fast.CheckCopies && t.kind.Lendable() {
			t.runOnCopies(f, x)
			return
		}
		f.res = t.fn(ctxOf(x), f.arg)
	}
}

// runOnCopies runs the task as another node would: on a copy of its
// argument, made by its codec, and it stores a copy of the result
// (TSYS_CHECK_COPIES). A copy that costs much is reported once (copycost.go).
func (t *Task[A, R]) runOnCopies(f *frame[A, R], x *sched.Ctx) {
	var arg A
	start := time.Now()
	n, err := t.args.copy(&f.arg, &arg)
	if err != nil {
		x.FailTask(fmt.Errorf("task %q: copying its argument: %w", t.kind.Name, err))
	}
	t.costly.observe(t.kind.Name, "argument", n, time.Since(start))
	res := t.fn(ctxOf(x), arg)
	start = time.Now()
	n, err = t.results.copy(&res, &f.res)
	if err != nil {
		x.FailTask(fmt.Errorf("task %q: copying its result: %w", t.kind.Name, err))
	}
	t.costly.observe(t.kind.Name, "result", n, time.Since(start))
}

func (t *Task[A, R]) newFrame(w *sched.Worker) *frame[A, R] {
	pk := w.PerKind(&t.kind)
	s, _ := pk.Slab.(*frameSlab[A, R])
	if s == nil {
		s = &frameSlab[A, R]{}
		pk.Slab = s
	}
	if len(s.free) == 0 {
		s.free = make([]frame[A, R], frameSlabSize)
	}
	f := &s.free[0]
	s.free = s.free[1:]
	f.Init(&t.kind)
	return f
}

// Future is the result of a spawn: a T-value that may not be ready yet.
// It is a small value; copy it freely, pass it to other tasks, read it from
// any of them, any number of times.
type Future[R any] struct {
	c *cell[R] // nil when the value is already in v
	v R
}

// Get returns the result, waiting if needed. If the task is still in this
// worker's deque it runs here and now; if it is running elsewhere, the
// worker goes on with other tasks while this one waits.
func (f Future[R]) Get(c *Ctx) R {
	if checkForks {
		c.sched().Check() // before the token is read, which would race
	}
	if f.c != nil || c.fast.Token == nil {
		return f.get(c)
	}
	return f.v
}

// get is Get's slow path: a future not ready, or read under the work and
// span measure, or a Ctx that may not be used here (Check names why).
func (f Future[R]) get(c *Ctx) R {
	x := c.sched()
	if f.c == nil {
		x.Check()
		return f.v
	}
	if r := f.c; !r.Done() || x.Fast.Measure {
		x.Await(&r.Header)
	}
	return f.c.res
}
