package cli

import (
	"flag"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/cliflags"
)

// Program is one job the command runs (`NAME run PROGRAM [flags]`): its
// name, its options and the Job they make.
type Program struct {
	Name    string
	Summary string // one line, for the usage
	// Options makes the options of one run, fresh each time: run defines
	// their flags, parses the command line into them and asks them for
	// the Job. A value a run has to itself keeps two runs of one Program
	// apart (tests that run the command line in parallel).
	Options func() Options
	// InlineK is the load:K inlining threshold the program runs best
	// with, for runs that name no --inline; 0 means inline.DefaultK.
	InlineK int
	// Grain, when set, names the program's flag that sets how much work a
	// task does (a leaf size, a loop's grain), which `advise` tunes; a
	// program without one is tuned by its inlining threshold alone.
	Grain *Grain
}

// Options are a program's options for one run, bound to its flags:
// usually a pointer to a struct whose fields Flags binds (fs.IntVar) and
// Job reads, made fresh for each run by Program.Options. A job whose
// fields are its options may be its own Options (examples/histogram).
type Options interface {
	// Flags defines the program's flags on fs, each bound to an option.
	Flags(fs *flag.FlagSet)
	// Job makes the run's job from the parsed options, or returns an
	// error that says what to write instead (exit 2).
	Job() (Job, error)
}

// Grain is a program's flag that sets its tasks' size, and the values of
// it that `advise PROGRAM` weighs unless told others (--grains).
type Grain struct {
	Flag   string
	Values []string
}

// jobMaker defines the program's flags on fs and returns what makes its
// Job once fs is parsed, from Options.
func (p Program) jobMaker(fs *flag.FlagSet) func() (Job, error) {
	return cliflags.JobMaker(p.Name, p.Options, fs)
}

// inline is the inlining policy of a run that names none.
func (p Program) inline() inline.Policy { return cliflags.DefaultInline(p.InlineK) }
