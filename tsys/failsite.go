package tsys

import (
	"reflect"
	"runtime"
	"strings"
	"sync"
)

// Where a failure arose. A Ctx knows the task frame it runs and the
// closure body it is given to, but not the registered function a Fail is
// called in or a panic raised in: a Fork the inlining policy turned into a
// call, and every Call, runs the child's function in the parent's frame,
// and keeping a name per call would cost every fork. So a failure finds
// it after the fact, on its own path only: the innermost function on the
// stack that the program registered as a task, looked for from where the
// failure arose out to the nearest frame of this package, which is where
// a closure body was called (body.go) or a task function was run. When
// none is found the failure is the closure body's, named by its form
// ("tsys.For"), or the task frame's (sched.Ctx.TaskName). TaskError and
// TaskPanic name the same code the same way.

// taskFuncs maps a registered function's name, as the stack spells it, to
// the task it was registered as. The runtime's own tasks (the closure
// forms') are not in it: their bodies are named by their forms.
var taskFuncs sync.Map // string -> string

// noteTaskFunc records that fn is the body of the task name.
func noteTaskFunc(fn any, name string) {
	if f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()); f != nil {
		taskFuncs.LoadOrStore(f.Name(), name)
	}
}

// thisPackage prefixes the stack names of this package's functions.
const thisPackage = "github.com/tsys-go/tsys/tsys."

// schedPackage prefixes the stack names of the scheduler's functions,
// through which a failure the runtime raises passes.
const schedPackage = "github.com/tsys-go/tsys/internal/sched."

// innerTask looks at one frame of a failure's stack, walked from where it
// arose outward: the task registered for fn and done, or done at the
// nearest frame of this package (nothing registered inside it), or go on.
func innerTask(fn string) (task string, done bool) {
	if t, ok := taskFuncs.Load(fn); ok {
		return t.(string), true
	}
	return "", strings.HasPrefix(fn, thisPackage)
}

// programFunc reports whether fn is the program's: neither the Go
// runtime's nor the scheduler's or this package's, which raise panics on
// the program's behalf.
func programFunc(fn string) bool {
	return !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, schedPackage) &&
		!strings.HasPrefix(fn, thisPackage)
}

// failSite is the program's function that called Fail (skip frames above
// failSite's caller) and the innermost registered task on the stack from
// there (innerTask), or "" for either if not found.
func failSite(skip int) (fn, task string) {
	var pcs [64]uintptr
	n := runtime.Callers(skip+2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if fn == "" && programFunc(f.Function) {
			fn = f.Function
		}
		if t, done := innerTask(f.Function); done {
			return fn, t
		}
		if !more {
			return fn, ""
		}
	}
}
