package tsys_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
)

// maxSurface is how many names package tsys may export, deprecated names
// included: what a newcomer reads in go doc -all, its functions, types
// and methods (not struct fields). docs/API.md lists each with the one
// line why it exists, and the errgroup, rayon or Cilk name it stands
// for. A name added above this count first takes one out: a page of go
// doc a newcomer reads through, deprecated names included, since a
// released name cannot be taken out later without breaking its users.
const maxSurface = 45

// interfaceMethods are the methods that only satisfy a standard
// interface: part of their type's contract rather than a name to learn,
// counted but not listed in docs/API.md one by one.
var interfaceMethods = []string{"Error", "Unwrap", "String", "MarshalBinary", "UnmarshalBinary"}

// TestPublicSurface holds package tsys to maxSurface exported names, and
// docs/API.md to naming each of them but the interfaces' methods.
func TestPublicSurface(t *testing.T) {
	names := surface(t)
	t.Logf("%d names: %s", len(names), strings.Join(names, " "))
	if len(names) > maxSurface {
		t.Errorf("package tsys exports %d names, more than the %d docs/API.md designs: "+
			"remove one, or raise maxSurface and say in docs/API.md why", len(names), maxSurface)
	}
	api := readFile(t, "../docs/API.md")
	for _, n := range names {
		if _, m, ok := strings.Cut(n, "."); ok && slices.Contains(interfaceMethods, m) {
			continue
		}
		if !strings.Contains(api, "`"+n+"`") {
			t.Errorf("docs/API.md does not list %s: add its line (`%s`: why it exists; its errgroup, rayon or Cilk name)", n, n)
		}
	}
}

// surface lists the exported names of the package in this directory as
// go doc -all lists them, a method as Type.Method.
func surface(t *testing.T) []string {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	p, err := doc.NewFromFiles(fset, filesOf(pkgs["tsys"]), "github.com/tsys-go/tsys/tsys")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	add := func(name string) { names = append(names, name) }
	for _, f := range p.Funcs {
		add(f.Name)
	}
	for _, v := range append(p.Vars, p.Consts...) {
		for _, n := range v.Names {
			if ast.IsExported(n) {
				add(n)
			}
		}
	}
	for _, ty := range p.Types {
		add(ty.Name)
		for _, f := range ty.Funcs {
			add(f.Name)
		}
		for _, m := range ty.Methods {
			add(ty.Name + "." + m.Name)
		}
		for _, v := range append(ty.Vars, ty.Consts...) {
			for _, n := range v.Names {
				add(n)
			}
		}
	}
	slices.Sort(names)
	return names
}

func filesOf(p *ast.Package) []*ast.File {
	var fs []*ast.File
	for _, f := range p.Files {
		fs = append(fs, f)
	}
	return fs
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
