package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tsys-go/tsys/apps"
)

// usageError is a mistake on the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errHelp: the user asked for a command's flags (-h), which its flag set
// has printed. Not an error: tsys exits 0.
var errHelp = errors.New("help requested")

// parseFlags parses a command's flags: a flag error is bad usage, -h is
// errHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageError{err.Error()}
	}
	return nil
}

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintf(stderr, "tsys: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "tsys: %v\n", err)
		return 1
	}
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage())
		return usagef("no command given")
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		return runCommand(rest, stdout, stderr)
	case "node":
		return nodeCommand(rest, stdout, stderr)
	case "bench":
		return benchCommand(rest, stdout, stderr)
	case "hog":
		return hogCommand(rest, stderr)
	case "sim":
		return simCommand(rest, stdout, stderr)
	case "drain":
		return drainCommand(rest, stdout, stderr)
	case "jobs":
		return jobsCommand(rest, stdout, stderr)
	case "token":
		return tokenCommand(rest, stdout, stderr)
	case "version", "-version", "--version":
		return versionCommand(rest, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, topUsage())
		return nil
	default:
		fmt.Fprint(stderr, topUsage())
		return usagef("unknown command %q", cmd)
	}
}

func topUsage() string {
	var b strings.Builder
	b.WriteString(`usage:
  tsys run APP [app flags] [common flags]   run one job and print its result
  tsys node [flags]                         serve work to a cluster
  tsys drain [flags] ADDR                   have a node leave the cluster gracefully
  tsys jobs [flags] ADDR                    what runs where in a node's cluster
  tsys token --key-file F                   the token a keyed node's --http asks for
  tsys bench [flags]                        the scheduler benchmark matrix
  tsys sim [flags]                          simulate the schedulers on many virtual nodes
  tsys hog [--cpu N] F[:ON/OFF]             burn a fraction of a core (a competing process)
  tsys version                              this build's version, revision and Go

apps:
`)
	writeApps(&b)
	b.WriteString("\nRun 'tsys run -h' for the flags every app takes, 'tsys run APP --help' for an app's own.\n")
	return b.String()
}

// writeApps lists the apps of tsys run, a line each with its summary.
func writeApps(w io.Writer) {
	for _, n := range apps.Names() {
		a, _ := apps.Lookup(n)
		fmt.Fprintf(w, "  %-8s %s\n", n, a.Summary)
	}
}
