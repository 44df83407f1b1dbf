package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// Main runs the command line of os.Args and exits with its code: 0
// success, 1 the job failed or gave a wrong answer, 2 bad usage. Call it
// from main:
//
//	func main() { cli.Main(cli.Config{Programs: []cli.Program{sortProgram}}) }
func Main(cfg Config) {
	os.Exit(Exec(cfg, os.Args[1:], os.Stdout, os.Stderr))
}

// Exec is Main for a program's tests: it runs one command line (args
// without the program's name) in this process, writes what Main would
// to stdout and stderr, and returns the exit code rather than exiting.
func Exec(cfg Config, args []string, stdout, stderr io.Writer) int {
	c, err := newCommand(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", c.name, err)
		return 2
	}
	err = c.dispatch(args, stdout, stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
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
		case p.Options == nil:
			errs = append(errs, fmt.Errorf("cli.Config: program %q has no Options: give it the function that makes a run's options, which define its flags and make its Job", p.Name))
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
