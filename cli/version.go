package cli

import (
	"fmt"
	"io"

	"github.com/tsys-go/tsys/internal/buildinfo"
	"github.com/tsys-go/tsys/internal/cliflags"
	"github.com/tsys-go/tsys/internal/sched"
)

// versionCommand is the version verb (and --version): which build this
// is, so that a bug report or a benchmark result names the code it came
// from. With --tasks it also lists the tasks the binary registered, for
// an operator whose node refused a job for a task it lacks, and for the
// test that holds a program's binary to its own tasks.
func (c *command) versionCommand(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet(c.name+" version", stderr)
	tasks := fs.Bool("tasks", false, "also list the tasks this binary registered, a line each: the program's as \"task NAME (WHERE)\", then the runtime's own as \"library task NAME (WHERE)\"; WHERE says whether the task may cross nodes")
	cliflags.SetUsage(fs, c.name+" version [--tasks]", "Prints this build's version, its revision, the release of tsys it was built with and the Go that built it.")
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return Usagef("version takes no arguments but --tasks, got %q: run %s version alone, or %s version --tasks", fs.Arg(0), c.name, c.name)
	}
	fmt.Fprintln(stdout, buildinfo.Version(c.name))
	if *tasks {
		writeTasks(stdout)
	}
	return nil
}

// writeTasks lists the registered tasks, a line each: "task NAME" for
// the program's, then "library task NAME" for the runtime's own (which
// every program has: tsys.Both's), each with whether it may run on
// another node.
func writeTasks(w io.Writer) {
	var library []string
	for _, name := range sched.KindNames() {
		if k, _ := sched.LookupKind(name); k.Library {
			library = append(library, "library task "+name+where(k))
		} else {
			fmt.Fprintln(w, "task "+name+where(k))
		}
	}
	for _, line := range library {
		fmt.Fprintln(w, line)
	}
}

// where says whether a task may run on another node.
func where(k *sched.Kind) string {
	if k.Lendable() {
		return " (may cross nodes)"
	}
	return " (stays in its process)"
}
