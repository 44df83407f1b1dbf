package tsys

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"

	"github.com/tsys-go/tsys/internal/sched"
)

// The errors a run returns are this package's types, whatever layer made
// them: a program matches them with errors.As against tsys's names, and
// %T prints those names. The scheduler keeps types of its own, which Run
// and Do convert (userError).

// TaskError is the error of a run that a task failed (Ctx.Fail): it names
// the task and the function that called Fail, and Unwrap returns the
// error itself.
//
// Task names the code that failed, as TaskPanic's does: the innermost
// task the program registered on the stack of the function that called
// Fail; or, in a closure body with no registered task running inside it,
// the body's form: "tsys.Both", "tsys.Pair", "tsys.Do", "tsys.For",
// "tsys.Fold", or a registered loop's name; the same wherever the body
// ran. Func names the function that called Fail ("main.search.func2").
type TaskError struct {
	Task string // the registered name of the task that failed
	Func string // the function that called Ctx.Fail; "" when a task's error result failed the job
	Err  error
}

func (e *TaskError) Error() string {
	if e.Func == "" {
		return fmt.Sprintf("task %q: %v", e.Task, e.Err)
	}
	return fmt.Sprintf("task %q: %v (in %s)", e.Task, e.Err, e.Func)
}

// Unwrap returns the task's own error, for errors.Is and errors.As.
func (e *TaskError) Unwrap() error { return e.Err }

// TaskPanic is the error of a run in which a task panicked; it names the
// task and the function that panicked, and carries the stack.
//
// Task names the code that panicked, as TaskError's does: the innermost
// task the program registered on the stack where the panic was raised;
// or, in a closure body with no registered task running inside it, the
// body's form: "tsys.Both", "tsys.Pair", "tsys.Do", "tsys.For",
// "tsys.Fold", or a registered loop's name. Func names the program's
// function, as the stack does ("main.search.func2"): where the runtime
// panicked on the program's behalf (a Ctx used where it does not belong,
// a nil function given to a closure form), the function that called it.
type TaskPanic struct {
	Task  string // the code that panicked: a registered task, or a closure form
	Func  string // the program's function the panic was raised in, from Stack; "" if not found
	Value any    // the value passed to panic
	Stack []byte // the goroutine's stack where the panic was recovered
}

func (e *TaskPanic) Error() string {
	if e.Func == "" {
		return fmt.Sprintf("task %q panicked: %v\n%s", e.Task, e.Value, e.Stack)
	}
	return fmt.Sprintf("task %q panicked: %v (in %s)\n%s", e.Task, e.Value, e.Func, e.Stack)
}

// Unwrap returns the panic value when it is an error.
func (e *TaskPanic) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// ErrRemote is the error of a run that failed on another node: a task's
// error or panic there, as its text, and the node's name. errors.Is and
// errors.As cannot reach the task's own error through it.
type ErrRemote struct {
	Node string // the node's name, as the cluster knows it
	Err  string // the failure's text there
}

func (e *ErrRemote) Error() string { return fmt.Sprintf("node %s: %s", e.Node, e.Err) }

// userError is err as a program sees it: the scheduler's error types
// become this package's.
func userError(err error) error {
	switch e := err.(type) {
	case *sched.TaskPanic:
		return newTaskPanic(e)
	case *sched.ErrRemote:
		return &ErrRemote{Node: string(e.Node), Err: e.Err}
	}
	return err
}

func newTaskPanic(p *sched.TaskPanic) *TaskPanic {
	frames := panicFrames(p.Stack)
	tp := &TaskPanic{Task: p.Task, Value: p.Value, Stack: p.Stack}
	raisedIn := ""
	for _, fn := range frames {
		if raisedIn == "" && !strings.HasPrefix(fn, "runtime.") {
			raisedIn = fn
		}
		if programFunc(fn) {
			tp.Func = fn
			break
		}
	}
	for _, fn := range frames {
		if t, done := innerTask(fn); done {
			if t != "" {
				tp.Task = t
			}
			break
		}
	}
	if v, ok := nilReceiver(raisedIn, tp.Value); ok {
		tp.Value = v
	}
	return tp
}

// panicFrames is the functions of the stack the scheduler recovered a
// panic with, from where the newest panic was raised outward.
func panicFrames(stack []byte) []string {
	lines := bytes.Split(stack, []byte("\n"))
	for i, l := range lines {
		if !bytes.HasPrefix(l, []byte("panic(")) {
			continue
		}
		var fns []string
		for _, f := range lines[i+1:] {
			if len(f) == 0 || f[0] == '\t' || bytes.HasPrefix(f, []byte("created by ")) {
				continue
			}
			fns = append(fns, funcName(string(f)))
		}
		return fns
	}
	return nil
}

// funcName is a stack line's function without its arguments.
func funcName(frame string) string {
	if strings.HasSuffix(frame, ")") {
		if i := strings.LastIndexByte(frame, '('); i > 0 {
			return frame[:i]
		}
	}
	return frame
}

// taskMethodPrefix begins the stack name of a method of Task.
const taskMethodPrefix = "github.com/tsys-go/tsys/tsys.(*Task[...])."

// nilReceiver turns a nil dereference raised inside one of this
// package's inlined methods (raisedIn) into the mistake behind it: a Task
// variable used before the init function that registers it ran, or a nil
// Ctx. Fork, Spawn and Join check for nil only here, after the fact,
// since a check on their fast path would cost every fork
// (TestForkInlinesIntoTaskCode). A method of Ctx, Forked or Future
// dereferences only the Ctx; one of Task may dereference either, and a
// nil dereference does not say where it faulted, so its message names
// both.
func nilReceiver(raisedIn string, v any) (any, bool) {
	re, ok := v.(runtime.Error)
	if !ok || !strings.Contains(re.Error(), "nil pointer dereference") {
		return nil, false
	}
	if m, ok := strings.CutPrefix(raisedIn, taskMethodPrefix); ok {
		if m == "forkChecked" {
			m = "Fork" // Fork's body under the race detector
		}
		return &nilTaskError{method: m, cause: re, orCtx: m == "Fork" || m == "Spawn" || m == "Call"}, true
	}
	for _, prefix := range ctxReaders {
		if m, ok := strings.CutPrefix(raisedIn, prefix); ok {
			return &nilCtxError{method: strings.TrimPrefix(prefix, thisPackage) + m, cause: re}, true
		}
	}
	return nil, false
}

// ctxReaders begin the stack names of the inlined methods whose only
// pointer is the Ctx they are given.
var ctxReaders = []string{thisPackage + "(*Ctx).", thisPackage + "Forked[...].", thisPackage + "Future[...]."}

// nilCtxError is the panic value of a method given a nil *Ctx.
type nilCtxError struct {
	method string // as the stack names it: "Forked[...].Join"
	cause  error
}

func (e *nilCtxError) Error() string {
	return fmt.Sprintf("tsys: %s given a nil *tsys.Ctx: pass the Ctx the task or the closure body "+
		"was given (its parameter c) (%v)", e.method, e.cause)
}

// Unwrap returns the runtime error of the nil dereference.
func (e *nilCtxError) Unwrap() error { return e.cause }

// nilTaskError is the panic value of a method called on a nil *Task, or
// (orCtx) of one that may have been given a nil Ctx instead, which the
// fault cannot tell apart.
type nilTaskError struct {
	method string
	cause  any
	orCtx  bool
}

func (e *nilTaskError) Error() string {
	msg := "tsys: Task." + e.method + " called on a nil *Task: the task is used before it is registered; " +
		"assign it with tsys.Register in a package-level var or an init function"
	if e.orCtx {
		msg = "tsys: Task." + e.method + " called on a nil *Task or given a nil *tsys.Ctx: a task is nil " +
			"until tsys.Register assigns it (in a package-level var or an init function), and the Ctx " +
			"must be the one the task or the closure body was given (its parameter c)"
	}
	if e.cause == nil {
		return msg
	}
	return fmt.Sprintf("%s (%v)", msg, e.cause)
}

// Unwrap returns the runtime error of the nil dereference.
func (e *nilTaskError) Unwrap() error {
	err, _ := e.cause.(error)
	return err
}
