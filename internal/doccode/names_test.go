package doccode

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

// names of a small package: Old and T.Gone are deprecated, Join is
// deprecated but shares its spelling with the live Forked.Join.
const namesSrc = `package tsys

// Old is.
//
// Deprecated: use New.
func Old() {}

// New is.
func New() {}

// Join is.
//
// Deprecated: use Both.
func Join() {}

type Forked struct{}

// Join joins.
func (Forked) Join() {}

type T struct {
	// Gone is.
	//
	// Deprecated: gone.
	Gone int
	Kept int // Kept stays.
}

// Pool is.
//
// Deprecated: internal.
func (T) Pool() {}
`

func parseNames(t *testing.T) (live, deprecated []Name) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "tsys.go", namesSrc, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	return Names("example.com/tsys", "tsys", []*ast.File{f})
}

func TestNamesFindsTheDeprecated(t *testing.T) {
	live, deprecated := parseNames(t)
	var dep []string
	for _, n := range deprecated {
		dep = append(dep, n.String())
	}
	slices.Sort(dep)
	if want := []string{"tsys.Join", "tsys.Old", "tsys.T.Gone", "tsys.T.Pool"}; !slices.Equal(dep, want) {
		t.Errorf("deprecated %q, want %q", dep, want)
	}
	if !slices.Contains(live, Name{"example.com/tsys", "tsys", "Forked", "Join"}) || !slices.Contains(live, Name{"example.com/tsys", "tsys", "T", "Kept"}) {
		t.Errorf("live %v lacks Forked.Join or T.Kept", live)
	}
}

func TestProseFindsTheSpellingGoDocUses(t *testing.T) {
	live, deprecated := parseNames(t)
	p := NewProse(deprecated, live)
	names := func(ns []Name) (s []string) {
		for _, n := range ns {
			s = append(s, n.String())
		}
		return s
	}
	for line, want := range map[string][]string{
		"call `tsys.Old` no more":                  {"tsys.Old"},
		"call `Old(x)` no more":                    {"tsys.Old"},
		"Old habits die hard":                      nil, // a word, not code
		"`Join` is Cilk's sync":                    nil, // Forked.Join is live
		"tsys.Join was the closures' join":         {"tsys.Join"},
		"read T.Gone, or T.Kept":                   {"tsys.T.Gone"},
		"the pool of workers (`Pool`) is internal": nil, // a method counts as T.Pool
	} {
		if got := names(p.Markdown(line)); !slices.Equal(got, want) {
			t.Errorf("Markdown(%q) = %q, want %q", line, got, want)
		}
	}
	for _, c := range []struct {
		text, recv string
		want       []string
	}{
		{"closure forms (Join, For, Old and the\nothers)", "", []string{"tsys.Old"}},
		{"a sentence.\nOld ways end here.", "", nil},
		{"the runtime's own workers (Pool); a run", "T", []string{"tsys.T.Pool"}},
		{"the runtime's own workers (Pool); a run", "Forked", nil},
		{"as code:\n\n\ttsys.Old()\n\nand no more", "", nil}, // code is the type checker's
	} {
		var got []string
		for _, h := range p.Comment(c.text, c.recv) {
			got = append(got, h.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Comment(%q, %q) = %q, want %q", c.text, c.recv, got, c.want)
		}
	}
}

// A use of a deprecated method through an instantiated generic type is a
// use of the method: the check compares origins.
func TestUsesReachTheGenericMethod(t *testing.T) {
	m := module(t)
	pkg, err := m.checker.Importer.Import("github.com/tsys-go/tsys/tsys")
	if err != nil {
		t.Fatal(err)
	}
	whyLocal := Name{Pkg: pkg.Path(), PkgName: "tsys", Recv: "Task", Name: "WhyLocal"}.Object(pkg)
	if whyLocal == nil {
		t.Fatal("no tsys.Task.WhyLocal")
	}
	r, errs := check(t, Block{File: "X.md", Line: 1, Markdown: true, Text: "var T *tsys.Task[int, int]\n\nfmt.Println(T.WhyLocal())"})
	if errs != "" {
		t.Fatal(errs)
	}
	found := false
	for _, u := range r.Uses {
		found = found || Origin(u.Object) == whyLocal && u.Pos.Line == 3
	}
	if !found {
		t.Errorf("the use of T.WhyLocal on line 3 is not found among %d uses", len(r.Uses))
	}
}
