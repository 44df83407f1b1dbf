package tsys

import (
	"reflect"
	"runtime"
	"sync"
)

// Where a failure arose. A Ctx knows the task frame it runs, but not the
// registered function a Fail is called in: a Fork the inlining policy
// turned into a call, and every Call, runs the child's function in the
// parent's frame, and keeping a name per call would cost every fork. So
// Fail finds it after the fact, on its own path only: the innermost frame
// of the caller's stack whose function a program registered.

// taskFuncs maps a registered function's name, as the stack spells it, to
// the task it was registered as. The runtime's own tasks (Both's, the
// closure forms') are not in it, since they are registered without
// noteTaskFunc: a closure's failure names the program's task around it,
// if any.
var taskFuncs sync.Map // string -> string

// noteTaskFunc records that fn is the body of the task name.
func noteTaskFunc(fn any, name string) {
	if f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()); f != nil {
		taskFuncs.LoadOrStore(f.Name(), name)
	}
}

// failSite is the function that called Fail (skip frames above
// failSite's caller) and the innermost registered task on the stack
// from there, or "" for either if not found.
func failSite(skip int) (fn, task string) {
	var pcs [64]uintptr
	n := runtime.Callers(skip+2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if fn == "" {
			fn = f.Function
		}
		if t, ok := taskFuncs.Load(f.Function); ok {
			return fn, t.(string)
		}
		if !more {
			return fn, ""
		}
	}
}
