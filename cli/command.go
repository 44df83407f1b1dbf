package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tsys-go/tsys/internal/cliflags"
)

// Command is a verb of a program's own: `NAME VERB ARGS`. Run gets ARGS,
// the words after the verb, as they were given: it defines its flags on
// a NewFlagSet, parses ARGS with ParseFlags and reads the words after the
// flags from the flag set (fs.Args()). It returns
//   - an error made with Usagef for a mistake on the command line (exit 2),
//     which ParseFlags' error for a bad flag is;
//   - flag.ErrHelp, as ParseFlags returns it after -h (exit 0: the flag
//     set has printed the help);
//   - any other error for a failure (exit 1), and nil for success.
type Command struct {
	Name    string
	Usage   string // what follows the verb in the usage: "[flags] ADDR"
	Summary string // what it does, in a few words
	Run     func(args []string, stdout, stderr io.Writer) error
}

// usageError is a mistake on the command line: exit code 2. err, when
// set, is the error that showed it (asUsage).
type usageError struct {
	msg string
	err error
}

func (e usageError) Error() string { return e.msg }

func (e usageError) Unwrap() error { return e.err }

// Usagef makes the error of a mistake on the command line (exit 2): say
// what to write instead.
func Usagef(format string, args ...any) error { return usageError{msg: fmt.Sprintf(format, args...)} }

// NewFlagSet makes the flag set of a Command, named as the verb's usage
// names it ("mysum twice"). It returns a flag error to ParseFlags rather
// than exiting, and writes the error and its -h to stderr, the writer
// the Command was given (a test's buffer), not os.Stderr. Its -h spells
// the flags as every verb's does, --name (and -x for a one-letter name),
// which package flag parses as well as -name.
func NewFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage of %s:\n", name)
		cliflags.Write(fs.Output(), fs)
	}
	return fs
}

// ParseFlags parses a Command's flags: a flag error is bad usage (exit
// 2), which says where the flags are listed, and -h is flag.ErrHelp
// (exit 0).
func ParseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return flag.ErrHelp
		}
		// --help, not -h: a program may have a -h of its own (rt's
		// image height).
		return Usagef("%v (%s --help lists the flags it takes)", err, fs.Name())
	}
	return nil
}

// parseFlagsOnly parses the command line of a verb that takes flags and
// nothing else, as ParseFlags does: an argument after the flags is bad
// usage too.
func parseFlagsOnly(fs *flag.FlagSet, args []string) error {
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("%s: unexpected argument %q: it takes flags only (%s --help lists them)", verbOf(fs), fs.Arg(0), fs.Name())
	}
	return nil
}

// verbOf is the verb whose flag set NewFlagSet made: the last word of its
// name, which its messages begin with.
func verbOf(fs *flag.FlagSet) string {
	return fs.Name()[strings.LastIndex(fs.Name(), " ")+1:]
}
