package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

// Two tasks for version --tasks to list: one whose argument may cross
// nodes, one whose argument (a channel) cannot.
var (
	lendable = tsys.Register("cliversion.lendable", func(_ *tsys.Ctx, n int) int { return n })
	local    = tsys.Register("cliversion.local", func(_ *tsys.Ctx, ch chan int) int { return <-ch })
)

// TestVersionTasks: version --tasks lists every task the binary
// registered, sorted, each saying whether it may cross nodes; any other
// argument is bad usage that names the one version takes.
func TestVersionTasks(t *testing.T) {
	_, _ = lendable, local
	var out, errb bytes.Buffer
	if code := cli.Exec(cli.Config{Name: "prog"}, []string{"version", "--tasks"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.HasPrefix(lines[0], "prog ") {
		t.Errorf("first line %q: want the version line", lines[0])
	}
	tasks := lines[1:]
	for _, want := range []string{"task cliversion.lendable (may cross nodes)", "task cliversion.local (stays in its process)"} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("no line %q in:\n%s", want, out.String())
		}
	}
	for i := 1; i < len(tasks); i++ {
		if tasks[i-1] >= tasks[i] {
			t.Errorf("%q before %q: want the tasks sorted", tasks[i-1], tasks[i])
		}
	}
	errb.Reset()
	if code := cli.Exec(cli.Config{Name: "prog"}, []string{"version", "--task"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "prog version --tasks") {
		t.Errorf("version --task: exit %d, %q; want 2 and the argument version takes", code, errb.String())
	}
}
