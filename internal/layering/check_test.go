package layering

import (
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// TestCheckFindsEachRule: a graph that breaks every rule gets a
// violation of each, naming the chain from the package that breaks it,
// and a graph that keeps them gets none.
func TestCheckFindsEachRule(t *testing.T) {
	m := func(p string) string { return Module + "/" + p }
	bad := []Package{
		{ImportPath: m("cli"), Imports: []string{m("internal/cluster"), "fmt"}},
		{ImportPath: m("internal/cluster"), Imports: []string{m("internal/calibrate")}},
		{ImportPath: m("internal/calibrate"), Imports: []string{m("apps/fib")}},
		{ImportPath: m("sim"), Imports: []string{m("internal/report")}},
		{ImportPath: m("internal/report"), Imports: []string{m("internal/cluster")}},
		{ImportPath: m("bench"), Imports: []string{m("cmd/tsys")}},
		{ImportPath: m("internal/monitor"), Imports: []string{m("internal/proctest")}},
		{ImportPath: m("internal/net/transport"), Imports: []string{m("tsys")}},
		{ImportPath: m("internal/runtimecore"), Imports: []string{m("internal/sched")}},
		{ImportPath: m("internal/sched"), Imports: []string{m("cli")}},
		{ImportPath: m("internal/calibrate/x"), Imports: []string{m("internal/report")}},
		{ImportPath: "fmt"},
	}
	var got []string
	for _, v := range Check(bad, Rules) {
		got = append(got, v.String())
	}
	for _, want := range []string{
		"the library imports the lab: cli -> internal/cluster -> internal/calibrate\n",
		"the library imports the lab: internal/cluster -> internal/calibrate\n",
		"the simulator links the network: sim -> internal/report -> internal/cluster\n",
		"a package imports a command: bench -> cmd/tsys\n",
		"a package imports a test helper: internal/monitor -> internal/proctest\n",
		"the runtime imports its facade: internal/net/transport -> tsys\n",
		"the runtime imports its facade: internal/runtimecore -> internal/sched -> cli\n",
		"calibration links the cluster: internal/calibrate/x -> internal/report -> internal/cluster\n",
	} {
		if !containsPrefix(got, want) {
			t.Errorf("no violation %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
	good := []Package{
		{ImportPath: m("cli"), Imports: []string{m("internal/cluster"), m("tsys")}},
		{ImportPath: m("sim"), Imports: []string{m("internal/tasktree"), m("tsys")}},
		{ImportPath: m("advise"), Imports: []string{m("cli"), m("sim"), m("internal/calibrate")}},
		{ImportPath: m("internal/calibrate"), Imports: []string{m("internal/runtimecore"), m("internal/clusterpolicy")}},
		{ImportPath: m("internal/cluster"), Imports: []string{m("internal/runtimecore"), m("internal/net/transport")}},
		{ImportPath: m("internal/runtimecore"), Imports: []string{m("internal/sched")}},
		{ImportPath: m("internal/testnode"), Imports: []string{m("cli"), m("tsys")}},
		{ImportPath: m("internal/clitest"), Imports: []string{m("cli")}},
		{ImportPath: m("cmd/tsys"), Imports: []string{m("advise"), m("bench")}},
	}
	if v := Check(good, Rules); len(v) > 0 {
		t.Errorf("the layering as it is meant: %v", v)
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestInitHooksFindsSetters: an init that sets another package's variable
// or calls its function is named; one that sets its own, or calls the
// standard library, is not.
func TestInitHooksFindsSetters(t *testing.T) {
	const src = `package tsys

import (
	"fmt"
	seam "github.com/tsys-go/tsys/internal/runtimeseam"
	"github.com/tsys-go/tsys/internal/cliseam"
)

var own func()

func init() {
	seam.Inspect = func(any) {}
	cliseam.SetCheckRun(nil)
	own = func() {}
	fmt.Sprint()
}

func notInit() { seam.Inspect = nil }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "hook.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := InitHooks(fset, "tsys", f)
	want := []string{"tsys (hook.go:12:2): init sets internal/runtimeseam.Inspect", "tsys (hook.go:13:2): init calls internal/cliseam.SetCheckRun"}
	if !slices.Equal(got, want) {
		t.Errorf("InitHooks:\n got %q\nwant %q", got, want)
	}
}
