package apps

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// App is one program of the catalog.
type App struct {
	Name    string
	Summary string
	// Flags registers the app's flags on fs and returns the function that
	// turns the parsed flags into a Job (or a usage error).
	Flags func(fs *flag.FlagSet) func() (Job, error)
	// InlineK is the load:K threshold the app runs best with, found by
	// measurement, for runs that name no inlining policy; 0 means
	// inline.DefaultK.
	InlineK int
}

// Inline is the inlining policy for a run of the app that names none.
func (a App) Inline() inline.Policy {
	if a.InlineK > 0 {
		return inline.LoadK(a.InlineK)
	}
	return inline.Default()
}

// Job is one parameterised run of an app.
type Job interface {
	// Params are the job's parameters, for the --json output.
	Params() map[string]any
	// Run runs the job on rt, its root task on this node.
	Run(ctx context.Context, rt *tsys.Runtime) (Result, tsys.Stats, error)
	// Serial runs the plain serial Go version.
	Serial() (Result, error)
	// Verify checks a result: verified is true when it was checked against
	// a published value or the serial version; err is set when the check
	// failed (the answer is wrong).
	Verify(r Result) (verified bool, err error)
}

// Result is an app's answer: Value goes into the JSON "result" field and
// Text is the one-line human summary.
type Result struct {
	Value any
	Text  string
}

var catalog = map[string]App{}

func register(a App) { catalog[a.Name] = a }

// Lookup finds an app by name.
func Lookup(name string) (App, error) {
	if a, ok := catalog[name]; ok {
		return a, nil
	}
	return App{}, fmt.Errorf("unknown app %q: want one of %s", name, strings.Join(Names(), ", "))
}

// ParseJob makes a job of the named app from its flags alone (no common
// flags), for tests and benchmarks.
func ParseJob(name string, args ...string) (Job, error) {
	a, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mk := a.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return mk()
}

// Names lists the apps in order.
func Names() []string {
	var out []string
	for n := range catalog {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
