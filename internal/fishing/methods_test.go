package fishing

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// maxMethods bounds the methods of any type of the package: a reader
// holds a type by its methods, and a type with more has more than one
// concern, which go in parts of their own (Policy's doc says which).
const maxMethods = 25

// TestMethodCounts: no type of the package, Policy included, declares
// more than maxMethods methods, and none embeds a field, whose methods
// would count without being declared.
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
					r := receiverType(d.Recv.List[0].Type)
					methods[r] = append(methods[r], d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					if st, ok := ts.Type.(*ast.StructType); ok {
						for _, field := range st.Fields.List {
							if len(field.Names) == 0 {
								t.Errorf("%s: %s embeds %s: its methods would be %s's too", fset.Position(field.Pos()), ts.Name.Name, receiverType(field.Type), ts.Name.Name)
							}
						}
					}
				}
			}
		}
	}
	if len(methods["Policy"]) == 0 {
		t.Fatal("no method of Policy found: is the test reading the package?")
	}
	for typ, ms := range methods {
		if len(ms) > maxMethods {
			t.Errorf("%s has %d methods, more than %d: %s", typ, len(ms), maxMethods, strings.Join(ms, ", "))
		}
	}
	t.Logf("Policy: %d methods", len(methods["Policy"]))
}

// receiverType is the name of the type of a receiver or field: T, *T,
// T[P] or pkg.T.
func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.IndexExpr:
		return receiverType(e.X)
	case *ast.IndexListExpr:
		return receiverType(e.X)
	case *ast.SelectorExpr:
		return receiverType(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return "?"
}
