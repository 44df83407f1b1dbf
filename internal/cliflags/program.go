package cliflags

import (
	"flag"
	"fmt"

	"github.com/tsys-go/tsys/inline"
)

// JobMaker defines the flags of a program's options on fs, as run does,
// and returns what makes the program's job once fs is parsed: the one
// way from a cli.Program to its job, for run and for the advise verb.
// options is the Program's Options, which makes a fresh value of the
// program's options each time; flags, its deprecated Flags, serves a
// Program without Options. It is generic over the options and the job
// so that it needs nothing of package cli, which imports it.
func JobMaker[J any, O interface {
	Flags(fs *flag.FlagSet)
	Job() (J, error)
}](program string, options func() O, fs *flag.FlagSet) func() (J, error) {
	if options == nil {
		return func() (J, error) {
			var none J
			return none, fmt.Errorf("cli.Program %q has no Options: set Options to a function that returns a new value of the program's options", program)
		}
	}
	o := options()
	if any(o) == nil {
		return func() (J, error) {
			var none J
			return none, fmt.Errorf("cli.Program %q: Options returned nil: return a new value of the program's options", program)
		}
	}
	o.Flags(fs)
	return o.Job
}

// DefaultInline is the inlining policy of a run that names no --inline,
// for a program whose cli.Program.InlineK is k: load:k, or the default
// for 0. The lab (advise, bench) reads a program's policy as run does,
// through here.
func DefaultInline(k int) inline.Policy {
	if k > 0 {
		return inline.LoadK(k)
	}
	return inline.Default()
}
