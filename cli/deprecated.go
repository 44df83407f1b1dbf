package cli

import (
	"flag"

	"github.com/tsys-go/tsys/inline"
)

// ErrHelp is what ParseFlags returns after -h: flag.ErrHelp.
//
// Deprecated: use flag.ErrHelp, which ErrHelp is; a Command that returns
// either exits 0.
var ErrHelp = flag.ErrHelp

// ParseFlagsOnly parses the command line of a verb that takes flags and
// nothing else, as ParseFlags does: an argument after the flags is bad
// usage too.
//
// Deprecated: use ParseFlags, then return a Usagef error when fs.NArg()
// is not 0.
func ParseFlagsOnly(fs *flag.FlagSet, args []string) error {
	return parseFlagsOnly(fs, args)
}

// CheckRun checks the command line of `run ARGS` as run would, without
// running the job: nil, or the error run would exit with.
//
// Deprecated: run the command line with Exec and run's --dry-run, which
// checks it as CheckRun does; the tsys command's benchmark driver checks
// its runs so.
func CheckRun(cfg Config, args []string) error { return checkRun(cfg, args) }

// Inline is the inlining policy for a run of the program that names none.
//
// Deprecated: set InlineK; run reads the policy from it.
func (p Program) Inline() inline.Policy { return p.inline() }
