package cli

import (
	"fmt"
	"io"
	"strings"
)

func (c *command) dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, c.usage())
		return Usagef("no command given: want one of the commands listed above (%s help)", c.name)
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		return c.runCommand(rest, stdout, stderr)
	case "node":
		return c.nodeCommand(rest, stdout, stderr)
	case "hog":
		return c.hogCommand(rest, stderr)
	case "drain":
		return c.drainCommand(rest, stdout, stderr)
	case "jobs":
		return c.jobsCommand(rest, stdout, stderr)
	case "token":
		return c.tokenCommand(rest, stdout, stderr)
	case "version", "-version", "--version":
		return c.versionCommand(rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, c.usage())
		return nil
	default:
		for _, v := range c.commands {
			if v.Name == cmd {
				return v.Run(rest, stdout, stderr)
			}
		}
		fmt.Fprint(stderr, c.usage())
		return Usagef("unknown command %q: want one of the commands listed above (%s help)", cmd, c.name)
	}
}

// usage is the command's own usage: its verbs and its programs.
func (c *command) usage() string {
	var b strings.Builder
	line := func(verb, what string) { fmt.Fprintf(&b, "  %s %-44s %s\n", c.name, verb, what) }
	b.WriteString("usage:\n")
	line("run PROGRAM [program flags] [common flags]", "run one job and print its result")
	line("node [flags]", "serve this program's tasks to a cluster")
	line("drain [flags] ADDR", "have a node leave the cluster gracefully")
	line("jobs [flags] ADDR", "what runs where in a node's cluster")
	line("token --key-file F", "the token a keyed node's --http asks for")
	for _, v := range c.commands {
		line(strings.TrimSpace(v.Name+" "+v.Usage), v.Summary)
	}
	line("hog [--cpu N] F[:ON/OFF]", "burn a fraction of a core (a competing process)")
	line("version [--tasks]", "this build's version, revision and Go; --tasks: the tasks it registered")
	b.WriteString("\nprograms:\n")
	c.writePrograms(&b)
	fmt.Fprintf(&b, "\nRun '%s run -h' for the flags every program takes, '%s run PROGRAM --help' for a program's own.\n", c.name, c.name)
	return b.String()
}

// writePrograms lists the programs of run, a line each with its summary.
func (c *command) writePrograms(w io.Writer) {
	for _, p := range c.programs {
		fmt.Fprintf(w, "  %-8s %s\n", p.Name, p.Summary)
	}
}
