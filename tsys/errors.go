package tsys

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
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
// Task is the innermost task the program registered on the stack of the
// function that called Fail: the task itself, or for a closure (Both,
// Pair, For, Fold) the task that ran it; for a closure of Do outside any
// such task, the runtime's own ("tsys.closure[int]#1"). Func names the
// function that called Fail ("main.search.func2").
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
// Task is the registered name of the innermost task, which for the
// closure forms (Both, Pair, Do, For, Fold) is the runtime's own
// ("tsys.both"); Func then names the closure itself, as the stack does
// ("main.search.func2").
type TaskPanic struct {
	Task  string // registered name of the innermost spawned task
	Func  string // the function the panic was raised in, from Stack; "" if not found
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
	Node clusterpolicy.NodeID
	Err  string
}

func (e *ErrRemote) Error() string { return fmt.Sprintf("node %s: %s", e.Node, e.Err) }

// userError is err as a program sees it: the scheduler's error types
// become this package's.
func userError(err error) error {
	switch e := err.(type) {
	case *sched.TaskPanic:
		return newTaskPanic(e)
	case *sched.ErrRemote:
		return &ErrRemote{Node: e.Node, Err: e.Err}
	}
	return err
}

func newTaskPanic(p *sched.TaskPanic) *TaskPanic {
	tp := &TaskPanic{Task: p.Task, Func: panicked(p.Stack), Value: p.Value, Stack: p.Stack}
	if m, ok := nilTaskMethod(tp); ok {
		tp.Value = &nilTaskError{method: m, cause: tp.Value}
	}
	return tp
}

// panicked is the function a panic was raised in, read from the stack
// the scheduler recovered it with: the first frame below the newest
// panic call that is not the Go runtime's (a nil dereference or an index
// out of range is raised by runtime functions on the program's behalf).
func panicked(stack []byte) string {
	lines := bytes.Split(stack, []byte("\n"))
	for i, l := range lines {
		if !bytes.HasPrefix(l, []byte("panic(")) {
			continue
		}
		for _, f := range lines[i+1:] {
			if len(f) == 0 || f[0] == '\t' || bytes.HasPrefix(f, []byte("runtime.")) {
				continue
			}
			return funcName(string(f))
		}
		return ""
	}
	return ""
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

// nilTaskMethod reports which method of Task panicked, if the panic is a
// nil dereference inside one: a Task variable used before the init
// function that registers it ran. Fork and Spawn check for nil only here,
// after the fact, since a check on their fast path would cost every fork
// (TestForkInlinesIntoTaskCode).
func nilTaskMethod(p *TaskPanic) (string, bool) {
	re, ok := p.Value.(runtime.Error)
	if !ok || !strings.Contains(re.Error(), "nil pointer dereference") {
		return "", false
	}
	m, ok := strings.CutPrefix(p.Func, taskMethodPrefix)
	if m == "forkChecked" {
		m = "Fork" // Fork's body under the race detector
	}
	return m, ok
}

// nilTaskError is the panic value of a method called on a nil *Task.
type nilTaskError struct {
	method string
	cause  any
}

func (e *nilTaskError) Error() string {
	msg := "tsys: Task." + e.method + " called on a nil *Task: the task is used before it is registered; " +
		"assign it with tsys.Register in a package-level var or an init function"
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
