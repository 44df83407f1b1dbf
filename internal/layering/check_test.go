package layering

import (
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
	} {
		if !containsPrefix(got, want) {
			t.Errorf("no violation %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
	good := []Package{
		{ImportPath: m("cli"), Imports: []string{m("internal/cluster"), m("tsys")}},
		{ImportPath: m("sim"), Imports: []string{m("internal/tasktree"), m("tsys")}},
		{ImportPath: m("advise"), Imports: []string{m("cli"), m("sim"), m("internal/calibrate")}},
		{ImportPath: m("internal/calibrate"), Imports: []string{m("internal/cluster")}},
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
