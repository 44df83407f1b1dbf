package tsys

// Closure bodies.
//
// Every closure form (Both, Pair, Do, For, Fold and the loops) runs the
// program's closure as a body: with a Ctx of its own, made by the
// scheduler, while the Ctx of the code around it is suspended
// (sched.Ctx.Enter). A closure that captured the Ctx around it and uses
// it inside the body is then named at its first use, whether the body runs
// here or on a thief, and so is a Forked that a body returns without
// joining, or that another body or the code around joins. The body's Ctx
// also names the body in a failure: a TaskPanic or TaskError raised in it
// names its form ("tsys.For") unless a task the program registered runs
// inside the body.
//
// A body that panics leaves through Unwind, deferred, so that a program
// that recovers the panic around the form finds its own Ctx usable again.

// The names of the closure forms, as a body's failure names them.
const (
	formBoth = "tsys.Both"
	formPair = "tsys.Pair"
	formDo   = "tsys.Do"
	formFor  = "tsys.For"
	formFold = "tsys.Fold"
)

// runBody runs f as a body of form inside the code that holds c.
func runBody(c *Ctx, form string, f func(c *Ctx)) {
	b := ctxOf(c.sched().Enter(form))
	defer b.sched().Unwind()
	f(b)
	b.sched().Leave()
}

// callBody runs f as a body of form inside the code that holds c, and
// returns its result.
func callBody[R any](c *Ctx, form string, f func(c *Ctx) R) R {
	b := ctxOf(c.sched().Enter(form))
	defer b.sched().Unwind()
	r := f(b)
	b.sched().Leave()
	return r
}

// needFunc panics, naming the argument, when a closure form is given a
// nil function: inside a job, the job's TaskPanic says which.
func needFunc(nilFunc bool, form, arg string) {
	if nilFunc {
		panic(form + ": " + arg + " is a nil function; pass the function to run")
	}
}

// needCtx panics when a closure form is given a nil Ctx, before anything
// reads it.
func needCtx(c *Ctx, form string) {
	if c == nil {
		panic(form + ": a nil *tsys.Ctx; pass the Ctx the task or the closure body was given " +
			"(its parameter c); outside a task, run the form inside tsys.Do")
	}
}
