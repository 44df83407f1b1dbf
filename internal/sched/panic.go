package sched

import "fmt"

// TaskPanic is the error a run returns when one of its tasks panicked.
type TaskPanic struct {
	Task  string // registered name of the innermost spawned task
	Value any    // the value passed to panic
	Stack []byte // the goroutine's stack where the panic was recovered
}

func (e *TaskPanic) Error() string {
	return fmt.Sprintf("task %q panicked: %v\n%s", e.Task, e.Value, e.Stack)
}

// Unwrap returns the panic value when it is an error.
func (e *TaskPanic) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
