package cli_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/buildinfo"
	"github.com/tsys-go/tsys/tsys"
)

// Two tasks for version --tasks to list: one whose argument may cross
// nodes, one whose argument (a channel) cannot.
var (
	lendable = tsys.Register("cliversion.lendable", func(_ *tsys.Ctx, n int) int { return n })
	local    = tsys.Register("cliversion.local", func(_ *tsys.Ctx, ch chan int) int { return <-ch })
)

// TestVersionTasks: version --tasks lists every task the binary
// registered, sorted, each saying whether it may cross nodes: the
// program's first ("task NAME"), then the library's own ("library task
// NAME", tsys.Both's), so that a program's list is its own; any other
// argument is bad usage that names the one version takes.
func TestVersionTasks(t *testing.T) {
	_, _ = lendable, local
	var out, errb bytes.Buffer
	if code := cli.Exec(cli.Config{Name: "prog"}, []string{"version", "--tasks"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.HasPrefix(lines[0], "prog ") || !strings.Contains(lines[0], " "+buildinfo.Release) {
		t.Errorf("first line %q: want the version line, which names tsys's release %s", lines[0], buildinfo.Release)
	}
	var own, library []string
	for _, line := range lines[1:] {
		switch {
		case strings.HasPrefix(line, "task "):
			if len(library) > 0 {
				t.Errorf("%q after the library's tasks: want the program's first", line)
			}
			own = append(own, line)
		case strings.HasPrefix(line, "library task "):
			library = append(library, line)
		default:
			t.Errorf("line %q: want task NAME or library task NAME", line)
		}
	}
	for _, want := range []string{"task cliversion.lendable (may cross nodes)", "task cliversion.local (stays in its process)"} {
		if !slices.Contains(own, want) {
			t.Errorf("no line %q among the program's tasks:\n%s", want, out.String())
		}
	}
	if want := "library task tsys.both (stays in its process)"; !slices.Contains(library, want) {
		t.Errorf("no line %q among the library's tasks:\n%s", want, out.String())
	}
	for _, l := range own {
		if strings.HasPrefix(l, "task tsys.") {
			t.Errorf("%q: the library's task among the program's", l)
		}
	}
	for _, tasks := range [][]string{own, library} {
		if !slices.IsSorted(tasks) {
			t.Errorf("%q: want the tasks sorted", tasks)
		}
	}
	for _, args := range [][]string{{"version", "--task"}, {"version", "extra"}} {
		errb.Reset()
		if code := cli.Exec(cli.Config{Name: "prog"}, args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "version [--tasks]") {
			t.Errorf("%v: exit %d, %q; want 2 and the usage that names --tasks", args, code, errb.String())
		}
	}
	errb.Reset()
	if code := cli.Exec(cli.Config{Name: "prog"}, []string{"version", "-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "  --tasks\n") {
		t.Errorf("version -h: exit %d, %q; want 0 and --tasks documented", code, errb.String())
	}
}
