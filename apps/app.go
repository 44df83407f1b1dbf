package apps

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tsys-go/tsys/cli"
)

// Job is one parameterised run of an app. Every app's job also has a
// serial version and checks its result.
type Job interface {
	cli.SerialJob
	cli.Verifier
}

// catalog holds the apps, each a cli.Program the command line runs.
var catalog = map[string]cli.Program{}

func register(a cli.Program) { catalog[a.Name] = a }

// Lookup finds an app by name.
func Lookup(name string) (cli.Program, error) {
	if a, ok := catalog[name]; ok {
		return a, nil
	}
	return cli.Program{}, fmt.Errorf("unknown app %q: want one of %s", name, strings.Join(Names(), ", "))
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
	o := a.Options()
	o.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	j, err := o.Job()
	if err != nil {
		return nil, err
	}
	job, ok := j.(Job)
	if !ok {
		return nil, fmt.Errorf("%s: its job has no serial version or no check (an app's Job must be both)", name)
	}
	return job, nil
}

// Programs is the catalog as the command line takes it (cli.Config).
func Programs() []cli.Program {
	var out []cli.Program
	for _, n := range Names() {
		out = append(out, catalog[n])
	}
	return out
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
