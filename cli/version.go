package cli

import (
	"fmt"
	"io"

	"github.com/tsys-go/tsys/internal/buildinfo"
	"github.com/tsys-go/tsys/internal/sched"
)

// versionCommand is the version verb (and --version): which build this
// is, so that a bug report or a benchmark result names the code it came
// from. With --tasks it also lists the tasks the binary registered, for
// an operator whose node refused a job for a task it lacks, and for the
// test that holds a program's binary to its own tasks.
func (c *command) versionCommand(args []string, stdout io.Writer) error {
	tasks := len(args) == 1 && args[0] == "--tasks"
	if len(args) > 0 && !tasks {
		return Usagef("version takes no arguments but --tasks, got %q: run %s version alone, or %s version --tasks", args[0], c.name, c.name)
	}
	fmt.Fprintln(stdout, buildinfo.Version(c.name))
	if tasks {
		writeTasks(stdout)
	}
	return nil
}

// writeTasks lists the registered tasks, a line each: "task NAME", and
// whether it may run on another node.
func writeTasks(w io.Writer) {
	for _, name := range sched.KindNames() {
		where := "stays in its process"
		if k, _ := sched.LookupKind(name); k.Lendable() {
			where = "may cross nodes"
		}
		fmt.Fprintf(w, "task %s (%s)\n", name, where)
	}
}
