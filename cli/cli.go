package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// Config is a program's command line: the jobs it runs and, besides the
// verbs every tsys program has, any of its own.
type Config struct {
	// Name is the program's name in its usage and messages (default: the
	// base name of the binary).
	Name string
	// Programs are what `NAME run PROGRAM` runs; their tasks are the
	// ones this binary's nodes serve.
	Programs []Program
	// Commands are verbs of the program's own, beside run, node, drain,
	// jobs, token, hog and version.
	Commands []Command
	// Executable finds this program's binary, which --nodes and --hog
	// start as other processes (default: os.Executable). A test that runs
	// Exec in its own process points it at the built binary.
	Executable func() (string, error)
}

// Program is one job the command runs (`NAME run PROGRAM [flags]`): its
// flags, and the Job they make.
type Program struct {
	Name    string
	Summary string // one line, for the usage
	// Flags registers the program's flags on fs and returns the function
	// that turns the parsed flags into a Job, or into an error that tells
	// the user what to write (an exit 2).
	Flags func(fs *flag.FlagSet) func() (Job, error)
	// InlineK is the load:K inlining threshold the program runs best
	// with, for runs that name no --inline; 0 means inline.DefaultK.
	InlineK int
	// Grain, when set, names the program's flag that sets how much work a
	// task does (a leaf size, a loop's grain), which `advise` tunes; a
	// program without one is tuned by its inlining threshold alone.
	Grain *Grain
}

// Grain is a program's flag that sets its tasks' size, and the values of
// it that `advise PROGRAM` weighs unless told others (--grains).
type Grain struct {
	Flag   string
	Values []string
}

// Inline is the inlining policy for a run of the program that names none.
func (p Program) Inline() inline.Policy {
	if p.InlineK > 0 {
		return inline.LoadK(p.InlineK)
	}
	return inline.Default()
}

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

// Command is a verb of a program's own: `NAME VERB ARGS`. Run returns an
// error made with Usagef for a mistake on the command line (exit 2), any
// other error for a failure (exit 1), and ParseFlags' ErrHelp after -h
// (exit 0).
type Command struct {
	Name    string
	Usage   string // what follows the verb in the usage: "[flags] ADDR"
	Summary string // what it does, in a few words
	Run     func(args []string, stdout, stderr io.Writer) error
}

// Main runs the command line of os.Args and exits with its code: 0
// success, 1 the job failed or gave a wrong answer, 2 bad usage. Call it
// from main:
//
//	func main() { cli.Main(cli.Config{Programs: []cli.Program{sortProgram}}) }
func Main(cfg Config) {
	os.Exit(Exec(cfg, os.Args[1:], os.Stdout, os.Stderr))
}

// Exec runs one command line and returns its exit code, as Main does
// without exiting: for a program's tests, and for a main that does more.
func Exec(cfg Config, args []string, stdout, stderr io.Writer) int {
	c, err := newCommand(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", c.name, err)
		return 2
	}
	err = c.dispatch(args, stdout, stderr)
	switch {
	case err == nil, errors.Is(err, ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintf(stderr, "%s: %v\n", c.name, err)
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", c.name, err)
		return 1
	}
}

// command is a Config checked and ready: what every verb reads of it.
type command struct {
	name       string
	programs   []Program // sorted by name
	commands   []Command
	executable func() (string, error)
}

// builtins are the verbs every program has, as dispatch spells them; a
// Command may not take one.
var builtins = []string{"run", "node", "drain", "jobs", "token", "hog", "version", "-version", "--version", "help", "-h", "--help"}

func newCommand(cfg Config) (*command, error) {
	c := &command{name: cfg.Name, commands: cfg.Commands, executable: cfg.Executable}
	if c.name == "" {
		c.name = filepath.Base(os.Args[0])
	}
	if c.executable == nil {
		c.executable = os.Executable
	}
	c.programs = slices.Clone(cfg.Programs)
	slices.SortFunc(c.programs, func(a, b Program) int { return strings.Compare(a.Name, b.Name) })
	return c, errors.Join(c.checkPrograms(), c.checkCommands())
}

// checkPrograms says what is wrong with the Config's programs.
func (c *command) checkPrograms() error {
	var errs []error
	for i, p := range c.programs {
		switch {
		case p.Name == "":
			errs = append(errs, fmt.Errorf("cli.Config: a program (%q) has no Name: give it the name run takes", p.Summary))
		case strings.ContainsAny(p.Name, " \t") || strings.HasPrefix(p.Name, "-"):
			errs = append(errs, fmt.Errorf("cli.Config: program name %q is not one word a command line can name", p.Name))
		case p.Flags == nil:
			errs = append(errs, fmt.Errorf("cli.Config: program %q has no Flags function: it makes the program's Job", p.Name))
		case i > 0 && c.programs[i-1].Name == p.Name:
			errs = append(errs, fmt.Errorf("cli.Config: two programs are named %q", p.Name))
		case p.Grain != nil && (p.Grain.Flag == "" || len(p.Grain.Values) == 0):
			errs = append(errs, fmt.Errorf("cli.Config: program %q has a Grain without a Flag or Values: name the flag that sets its tasks' size and the values advise should weigh", p.Name))
		}
	}
	return errors.Join(errs...)
}

// checkCommands says what is wrong with the Config's commands.
func (c *command) checkCommands() error {
	var errs []error
	seen := map[string]bool{}
	for _, v := range c.commands {
		switch {
		case v.Name == "":
			errs = append(errs, fmt.Errorf("cli.Config: a command (%q) has no Name", v.Summary))
		case slices.Contains(builtins, v.Name):
			errs = append(errs, fmt.Errorf("cli.Config: command %q has the name of a verb every program has: choose another", v.Name))
		case v.Run == nil:
			errs = append(errs, fmt.Errorf("cli.Config: command %q has no Run function", v.Name))
		case seen[v.Name]:
			errs = append(errs, fmt.Errorf("cli.Config: two commands are named %q", v.Name))
		}
		seen[v.Name] = true
	}
	return errors.Join(errs...)
}

// lookup finds a program by name.
func (c *command) lookup(name string) (Program, error) {
	for _, p := range c.programs {
		if p.Name == name {
			return p, nil
		}
	}
	if len(c.programs) == 0 {
		return Program{}, fmt.Errorf("unknown program %q: this binary has none to run (cli.Config.Programs is empty)", name)
	}
	return Program{}, fmt.Errorf("unknown program %q: want one of %s", name, strings.Join(c.names(), ", "))
}

func (c *command) names() []string {
	var out []string
	for _, p := range c.programs {
		out = append(out, p.Name)
	}
	return out
}

// ErrHelp is what ParseFlags returns after -h, which the flag set has
// answered: Exec exits 0.
var ErrHelp = errors.New("help requested")

// usageError is a mistake on the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// Usagef makes the error of a mistake on the command line (exit 2): say
// what to write instead.
func Usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// NewFlagSet makes the flag set of a verb, named as the verb's usage
// names it ("tsys drain"); its last word is the verb, which
// ParseFlagsOnly's message names. It reports a flag error to ParseFlags
// rather than exiting, and writes the error and its -h to stderr, the
// writer the verb was given (a test's buffer), not os.Stderr.
func NewFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// ParseFlags parses a command's flags: a flag error is bad usage (exit
// 2), -h is ErrHelp (exit 0).
func ParseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ErrHelp
		}
		return usageError{err.Error()}
	}
	return nil
}

// ParseFlagsOnly parses the command line of a verb that takes flags and
// nothing else, as ParseFlags does: an argument after the flags is bad
// usage too.
func ParseFlagsOnly(fs *flag.FlagSet, args []string) error {
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("%s: unexpected argument %q", verbOf(fs), fs.Arg(0))
	}
	return nil
}

// verbOf is the verb whose flag set NewFlagSet made: the last word of its
// name, which its messages begin with.
func verbOf(fs *flag.FlagSet) string {
	return fs.Name()[strings.LastIndex(fs.Name(), " ")+1:]
}

// CheckRun checks the command line of `run ARGS` as run would, without
// running the job: nil, or the error run would exit with.
func CheckRun(cfg Config, args []string) error {
	c, err := newCommand(cfg)
	if err != nil {
		return err
	}
	_, err = c.parseRun(args, io.Discard)
	return err
}
