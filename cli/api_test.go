package cli_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"
)

// maxExported is how many names cli exports that are not deprecated. A
// program needs six to say what it runs (Config, Program, Options, Job,
// Result, TaskJob) and Main to run it; two to opt a job into --serial and
// into a check of its answer (SerialJob, Verifier); one to name the flag
// advise tunes (Grain); four for a verb of its own (Command, NewFlagSet,
// ParseFlags, Usagef); and Exec, one, for its tests. A new name has to
// replace one of these or say here which need it meets that they do not.
const maxExported = 15

// TestExportedNames holds cli to maxExported names, counted as go doc
// shows them: functions, types, variables and constants, and the methods
// of its types, but not Error, Unwrap and String (what an error or a
// value prints) nor a name whose doc says it is deprecated.
func TestExportedNames(t *testing.T) {
	names := exportedNames(t, ".")
	if len(names) > maxExported {
		t.Errorf("cli exports %d names that are not deprecated, more than %d: %s\n"+
			"fold the new one into an existing name, or move what the lab needs of it below cli (internal/cliflags, internal/cluster) or make it a flag of a verb (run --dry-run)",
			len(names), maxExported, strings.Join(names, ", "))
	}
	t.Logf("%d names: %s", len(names), strings.Join(names, ", "))
}

// exportedNames lists the exported names of the package in dir that are
// not deprecated, read from its non-test files.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			f, err := parser.ParseFile(fset, dir+"/"+n, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/tsys-go/tsys/cli")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	add := func(name, comment string) {
		if ast.IsExported(name) && !deprecated(comment) {
			names = append(names, name)
		}
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				add(n, v.Doc)
			}
		}
	}
	values(p.Consts)
	values(p.Vars)
	for _, f := range p.Funcs {
		add(f.Name, f.Doc)
	}
	for _, ty := range p.Types {
		add(ty.Name, ty.Doc)
		values(ty.Consts)
		values(ty.Vars)
		for _, f := range ty.Funcs {
			add(f.Name, f.Doc)
		}
		for _, m := range ty.Methods {
			switch m.Name {
			case "Error", "Unwrap", "String":
			default:
				add(ty.Name+"."+m.Name, m.Doc)
			}
		}
	}
	sort.Strings(names)
	return names
}

// deprecated reports whether a doc comment has a "Deprecated: "
// paragraph, as go doc and the linters read it.
func deprecated(comment string) bool {
	for _, para := range strings.Split(comment, "\n\n") {
		if strings.HasPrefix(para, "Deprecated: ") {
			return true
		}
	}
	return false
}
