package cli

import (
	"context"
	"fmt"

	"github.com/tsys-go/tsys/tsys"
)

// Job is one parameterised run of a program. A Job may also be a
// SerialJob (--serial runs it) and a Verifier (its result is checked).
type Job interface {
	// Params are the job's parameters, for the --json output.
	Params() map[string]any
	// Run runs the job's root task on rt, this node's runtime: on a
	// cluster, the other nodes serve its tasks.
	Run(ctx context.Context, rt *tsys.Runtime) (Result, tsys.Stats, error)
}

// SerialJob is a Job with a plain serial version, run by --serial: the
// baseline T_S the parallel runs are measured against.
type SerialJob interface {
	Job
	Serial() (Result, error)
}

// Verifier is a Job that can check its result: verified is true when it
// was checked against a published value or the serial version, and err
// is set when the check failed (the answer is wrong: exit 1).
type Verifier interface {
	Job
	Verify(r Result) (verified bool, err error)
}

// Result is a job's answer: Value goes into the --json "result" field and
// Text is the one-line summary.
type Result struct {
	Value any
	Text  string
}

// TaskJob is a Job that runs task on arg: the common case of a program
// whose work is one root task. Its Result is the task's value, as is,
// and its text that value as %v; params are what --json reports of the
// job. A program whose answer is large (a sorted slice) writes a Job of
// its own whose Result summarises it (examples/mergesort).
func TaskJob[A, R any](task *tsys.Task[A, R], arg A, params map[string]any) Job {
	return taskJob[A, R]{task: task, arg: arg, params: params}
}

type taskJob[A, R any] struct {
	task   *tsys.Task[A, R]
	arg    A
	params map[string]any
}

func (j taskJob[A, R]) Params() map[string]any { return j.params }

func (j taskJob[A, R]) Run(ctx context.Context, rt *tsys.Runtime) (Result, tsys.Stats, error) {
	v, st, err := tsys.Run(ctx, rt, j.task, j.arg)
	if err != nil {
		return Result{}, st, err
	}
	return Result{Value: v, Text: fmt.Sprint(v)}, st, nil
}
