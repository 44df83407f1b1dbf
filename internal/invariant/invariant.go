// Package invariant stops the program when tsys finds its own state
// broken: a count gone negative, a loan opened twice. Such a state is a
// bug in tsys, not in the program it runs, and going on would sleep
// through work or lose it, so it is never reported as a run's error.
package invariant

// Throw reports a broken invariant: it panics with msg as a Broken.
func Throw(msg string) {
	panic(Broken(msg))
}

// Broken is the panic value of Throw. The scheduler's executors recover
// a task's panic and fail its run with it, but let a Broken through: a
// bug in tsys is not the task's, and a run that went on, or a program
// that retried the job, would meet the state that broke.
type Broken string

func (b Broken) Error() string { return string(b) }
