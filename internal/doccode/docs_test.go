package doccode

import (
	"go/token"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// docPackages are the packages a doc's block may use without importing
// them, by the name it uses.
var docPackages = map[string]string{
	"tsys":          "github.com/tsys-go/tsys/tsys",
	"cli":           "github.com/tsys-go/tsys/cli",
	"inline":        "github.com/tsys-go/tsys/inline",
	"advise":        "github.com/tsys-go/tsys/advise",
	"transport":     "github.com/tsys-go/tsys/internal/net/transport",
	"opts":          "github.com/tsys-go/tsys/internal/opts",
	"clusterpolicy": "github.com/tsys-go/tsys/internal/clusterpolicy",
	"context":       "context",
	"errors":        "errors",
	"flag":          "flag",
	"fmt":           "fmt",
	"math":          "math",
	"os":            "os",
	"slices":        "slices",
	"sort":          "sort",
	"strconv":       "strconv",
	"strings":       "strings",
	"sync":          "sync",
	"time":          "time",
}

// codePatterns are the packages whose code the deprecated names' check
// reads: the apps and the examples, all of it, and the public packages,
// whose Example functions (example*_test.go) it reads.
var codePatterns = []string{"./apps/...", "./examples/...", "./tsys", "./cli", "./inline"}

// publicPackages are the packages a program imports, whose deprecated
// names no current doc may use.
var publicPackages = []string{"tsys", "cli", "inline"}

// theModule is the module's docs checked, and its code read, once for
// the tests that need them.
var theModule = sync.OnceValues(func() (*moduleDocs, error) {
	m := &moduleDocs{}
	var err error
	if m.root, err = Root("."); err != nil {
		return nil, err
	}
	if m.files, err = GoFiles(m.root); err != nil {
		return nil, err
	}
	blocks, err := Blocks(m.root, m.files)
	if err != nil {
		return nil, err
	}
	givens := filepath.Join("internal", "doccode", "testdata", "givens.go")
	src, err := os.ReadFile(filepath.Join(m.root, givens))
	if err != nil {
		return nil, err
	}
	g, err := ParseGivens(filepath.ToSlash(givens), string(src))
	if err != nil {
		return nil, err
	}
	m.checker = &Checker{Givens: g, Packages: docPackages}
	if m.code, err = List(m.root, codePatterns...); err != nil {
		return nil, err
	}
	// One build for all: the blocks' imports, the code's, and the code's
	// own packages, which its external tests import.
	paths := m.checker.ImportPaths(blocks)
	for _, p := range docPackages {
		paths = append(paths, p)
	}
	for _, p := range m.code {
		paths = append(paths, p.ImportPath)
		paths = append(paths, p.Imports...)
		paths = append(paths, p.TestImports...)
		paths = append(paths, p.XTestImports...)
	}
	exports, err := Exports(m.root, paths)
	if err != nil {
		return nil, err
	}
	m.checker.Importer = Importer(token.NewFileSet(), exports)
	for _, b := range blocks {
		m.results = append(m.results, m.checker.Check(b))
	}
	return m, nil
})

type moduleDocs struct {
	root    string
	files   []ParsedFile // the module's Go files but tests
	checker *Checker
	results []Result  // every block of the docs, checked
	code    []Package // the packages of codePatterns
}

func module(t *testing.T) *moduleDocs {
	t.Helper()
	m, err := theModule()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Every Go block of the module's Markdown files and every Go code block
// of its doc comments compiles against the API as it is.
func TestDocsCompile(t *testing.T) {
	m := module(t)
	md, comments := 0, 0
	for _, r := range m.results {
		if !r.Go {
			continue
		}
		if r.Markdown {
			md++
		} else {
			comments++
		}
		for _, e := range r.Errors {
			t.Errorf("%s", e)
		}
	}
	t.Logf("compiled %d Go blocks of Markdown files and %d of doc comments", md, comments)
	for _, r := range m.results {
		if !r.Go && testing.Verbose() {
			t.Logf("not Go: %s:%d", r.File, r.Line)
		}
	}
}

// Go in a Markdown file is fenced ```go, so that TestDocsCompile compiles
// it: an indented block is taken for a command line.
func TestMarkdownGoIsFenced(t *testing.T) {
	m := module(t)
	err := Walk(m.root, ".md", func(rel string) error {
		md, err := os.ReadFile(filepath.Join(m.root, rel))
		if err != nil {
			return err
		}
		for _, l := range UnfencedGo(string(md)) {
			t.Errorf("%s:%d: looks like Go in an indented block: fence it ```go so that it is compiled", rel, l)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
