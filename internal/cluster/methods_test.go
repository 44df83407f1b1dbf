package cluster

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// maxMethods bounds the methods of any type of the package: a reader
// holds a type by its methods, and a type with more has more than one
// concern, which go in parts of their own (doc.go, "Parts", says which).
const maxMethods = 25

// embeds are the only embedded fields the package's structs may have,
// each for a reason of its own: an embedded field's methods are its
// struct's too, without a line of the struct's saying so.
var embeds = map[string][]string{
	// One flat JSON object of counters (doc.go, "Counters").
	"JobStats": {"sched.Stats", "NetStats"},
	// A report as it came, and the timeline that came with it.
	"peerReport": {"NodeReport"},
	// A root's failure is a sched.ErrRemote, which errors.As finds.
	"failedAtRoot": {"sched.ErrRemote"},
}

// TestMethodCounts: no type of the package, engine, Node and inbox
// included, declares more than maxMethods methods, and no struct embeds
// a field but those embeds lists, so that what a type declares is all it
// has.
func TestMethodCounts(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string][]string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					r := typeName(d.Recv.List[0].Type)
					methods[r] = append(methods[r], d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, field := range st.Fields.List {
						if len(field.Names) == 0 && !slices.Contains(embeds[ts.Name.Name], typeName(field.Type)) {
							t.Errorf("%s: %s embeds %s: its methods would be %s's too", fset.Position(field.Pos()), ts.Name.Name, typeName(field.Type), ts.Name.Name)
						}
					}
				}
			}
		}
	}
	// Without these the bound would hold by not finding them: a parse
	// that lost a file, or a part folded back into another type.
	for _, typ := range []string{"Node", "engine", "inbox", "lender", "borrower", "remote", "ticker", "server", "orphans", "gatherer", "drainer", "gossipInbox"} {
		if len(methods[typ]) == 0 {
			t.Errorf("type %s declares no method: is the test reading the package?", typ)
		}
	}
	for typ, ms := range methods {
		if len(ms) > maxMethods {
			t.Errorf("%s has %d methods, more than %d: %s", typ, len(ms), maxMethods, strings.Join(ms, ", "))
		}
	}
	t.Logf("methods: Node %d, engine %d, inbox %d, lender %d", len(methods["Node"]), len(methods["engine"]), len(methods["inbox"]), len(methods["lender"]))
}

// typeName is the name of the type of a receiver or field: T, *T, T[P]
// or pkg.T.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	case *ast.SelectorExpr:
		return typeName(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return "?"
}
