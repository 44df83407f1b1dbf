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
// aside: docs/API.md lists each with the one line why it exists, and the
// errgroup, rayon or Cilk name it stands for. The count is of what a
// newcomer reads in go doc: top-level names and the methods of exported
// types. A method that only satisfies a standard interface (Error,
// Unwrap, String, MarshalBinary, UnmarshalBinary) is part of its type's
// contract rather than a name to learn, and is not counted; neither are
// struct fields. A name added above this count first takes one out, or
// says in docs/API.md why the package needs one more.
const maxSurface = 45

// interfaceMethods are the methods the count leaves out.
var interfaceMethods = []string{"Error", "Unwrap", "String", "MarshalBinary", "UnmarshalBinary"}

// TestPublicSurface holds package tsys to maxSurface exported names that
// are not deprecated, and docs/API.md to naming each of them.
func TestPublicSurface(t *testing.T) {
	names := surface(t)
	t.Logf("%d names: %s", len(names), strings.Join(names, " "))
	if len(names) > maxSurface {
		t.Errorf("package tsys exports %d names that are not deprecated, more than the %d docs/API.md designs: "+
			"remove one, or deprecate the name it replaces, or raise maxSurface and say in docs/API.md why", len(names), maxSurface)
	}
	api := readFile(t, "../docs/API.md")
	for _, n := range names {
		if !strings.Contains(api, "`"+n+"`") {
			t.Errorf("docs/API.md does not list %s: add its line (`%s`: why it exists; its errgroup, rayon or Cilk name)", n, n)
		}
	}
}

// surface lists the exported, non-deprecated names of the package in this
// directory, a method as Type.Method.
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
	add := func(name, comment string) {
		if !deprecated(comment) {
			names = append(names, name)
		}
	}
	for _, f := range p.Funcs {
		add(f.Name, f.Doc)
	}
	for _, v := range append(p.Vars, p.Consts...) {
		for _, n := range v.Names {
			if ast.IsExported(n) {
				add(n, v.Doc)
			}
		}
	}
	for _, ty := range p.Types {
		add(ty.Name, ty.Doc)
		if deprecated(ty.Doc) {
			continue
		}
		for _, f := range ty.Funcs {
			add(f.Name, f.Doc)
		}
		for _, m := range ty.Methods {
			if !slices.Contains(interfaceMethods, m.Name) {
				add(ty.Name+"."+m.Name, m.Doc)
			}
		}
		for _, v := range append(ty.Vars, ty.Consts...) {
			for _, n := range v.Names {
				add(n, v.Doc)
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

// deprecated reports whether a doc comment has a "Deprecated: " paragraph,
// go doc's convention.
func deprecated(comment string) bool {
	return strings.HasPrefix(comment, "Deprecated: ") || strings.Contains(comment, "\nDeprecated: ")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
