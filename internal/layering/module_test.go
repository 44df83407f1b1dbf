package layering

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/proctest"
)

// goList runs `go list -deps -json` over patterns and decodes what Check
// reads of each package.
func goList(t *testing.T, patterns ...string) []Package {
	t.Helper()
	return listJSON[Package](t, append([]string{"-deps", "-json=ImportPath,Imports"}, patterns...)...)
}

// listJSON runs go list with args, which ask for JSON, and decodes each
// package it prints as a P.
func listJSON[P any](t *testing.T, args ...string) []P {
	t.Helper()
	args = append([]string{"list"}, args...)
	// Bounded far beyond what go list takes with a cold build cache.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, ee.Stderr)
		}
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	var pkgs []P
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p P
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestModuleKeepsItsLayers: no package of the module breaks a rule.
func TestModuleKeepsItsLayers(t *testing.T) {
	pkgs := goList(t, Module+"/...")
	if len(pkgs) < 50 {
		t.Fatalf("go list found %d packages: is the module where the test runs?", len(pkgs))
	}
	for _, v := range Check(pkgs, Rules) {
		t.Error(v)
	}
}

// TestNoHookSetAtInit: no init function of the library sets a variable
// of another package of the module or calls one of its functions: a hook
// that hands the facade's insides to the layers below it, where the
// imports do not show it (runtimecore's doc says what they import
// instead). Code of the kind a program has (IsProgramCode) registers its
// tasks at init, as programs do.
func TestNoHookSetAtInit(t *testing.T) {
	type source struct {
		ImportPath, Dir string
		GoFiles         []string
	}
	fset := token.NewFileSet()
	library := 0
	for _, p := range listJSON[source](t, "-json=ImportPath,Dir,GoFiles", Module+"/...") {
		rel := Rel(p.ImportPath)
		if !IsLibrary(rel) || IsProgramCode(rel) { // a program's init registers its tasks
			continue
		}
		library++
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range InitHooks(fset, rel, f) {
				t.Errorf("%s: the layer above imports what it needs, and what two layers share moves below both", h)
			}
		}
	}
	if library < 20 {
		t.Fatalf("found %d packages of the library: is the module where the test runs?", library)
	}
}

// userPrograms are the programs a user could have written: every example
// and the least program of tsys and cli.
var userPrograms = []string{"../../examples/...", "./testdata/minimal"}

// TestUserProgramsLinkOnlyTheLibrary: a program of tsys and cli links
// none of the lab: no app, simulator, advisor, benchmark or calibration.
func TestUserProgramsLinkOnlyTheLibrary(t *testing.T) {
	mains := 0
	for _, p := range goList(t, userPrograms...) {
		if strings.Contains(Rel(p.ImportPath), "examples/") || strings.HasSuffix(p.ImportPath, "/testdata/minimal") {
			mains++
		}
	}
	if mains < 2 {
		t.Fatalf("found %d programs in %v", mains, userPrograms)
	}
	for _, prog := range userPrograms {
		for _, p := range goList(t, prog) {
			rel := Rel(p.ImportPath)
			if IsLab(rel) && !under(rel, "examples") {
				t.Errorf("%s links %s, of the lab: %s", prog, rel, chainTo(t, prog, rel))
			}
		}
	}
}

// chainTo is the chain of imports by which prog links the package lab.
func chainTo(t *testing.T, prog, lab string) string {
	for _, v := range Check(goList(t, prog), []Rule{{From: func(p string) bool { return under(p, "examples") || strings.HasSuffix(p, "testdata/minimal") }, To: func(p string) bool { return p == lab }}}) {
		return strings.Join(v.Chain, " -> ")
	}
	return "(no chain found)"
}

// TestProgramRegistersOnlyItsOwnTasks: the least program's binary
// registers its one task beside the library's own, none of the lab's
// demo tasks; `version --tasks` lists what a binary registered, the
// program's tasks ("task NAME") apart from the library's ("library task
// NAME").
func TestProgramRegistersOnlyItsOwnTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin, err := proctest.Build("./testdata/minimal", t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // far beyond a version line's time
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "version", "--tasks")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s version --tasks: %v\n%s", bin, err, stderr.String())
	}
	var own, library []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n")[1:] {
		list := &own
		if rest, ok := strings.CutPrefix(line, "library "); ok {
			line, list = rest, &library
		}
		name, ok := strings.CutPrefix(line, "task ")
		if !ok {
			t.Fatalf("version --tasks line %q: want [library ]task NAME (where)", line)
		}
		name, _, _ = strings.Cut(name, " ")
		*list = append(*list, name)
	}
	if want := []string{"minimal.double"}; !slices.Equal(own, want) {
		t.Errorf("the program registers %v beside the library's %v; want its own %v alone:\n%s", own, library, want, out)
	}
	if !slices.Contains(library, "tsys.both") {
		t.Errorf("the library's tasks %v lack tsys.Both's, which every program has:\n%s", library, out)
	}
}
