package gosrc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

// TestReceiverAndTypeName: each form of receiver names its type without
// pointer or type parameters, a function names none, and an embedded
// field from another package keeps its package's name.
func TestReceiverAndTypeName(t *testing.T) {
	const src = `package p
import "strings"
type G[T any] struct{}
type H[K comparable, V any] struct{}
type S struct {
	strings.Builder
	*G[int]
}
func (S) Value()              {}
func (*S) Pointer()           {}
func (g *G[T]) Generic()      {}
func (H[K, V]) TwoParams()    {}
func Plain()                  {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Value": "S", "Pointer": "S", "Generic": "G", "TwoParams": "H", "Plain": ""}
	var embeds []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			w, ok := want[d.Name.Name]
			if !ok {
				t.Fatalf("func %s not in the table", d.Name.Name)
			}
			if got := Receiver(d); got != w {
				t.Errorf("Receiver(%s) = %q, want %q", d.Name.Name, got, w)
			}
			delete(want, d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					if st, ok := ts.Type.(*ast.StructType); ok {
						for _, field := range st.Fields.List {
							embeds = append(embeds, TypeName(field.Type))
						}
					}
				}
			}
		}
	}
	if len(want) != 0 {
		t.Errorf("funcs not found: %v", want)
	}
	if len(embeds) != 2 || embeds[0] != "strings.Builder" || embeds[1] != "G" {
		t.Errorf("embedded fields %q, want [strings.Builder G]", embeds)
	}
}

// TestDeprecated: only a paragraph that begins "Deprecated: " deprecates;
// the word inside a paragraph, or without its colon and space, does not.
func TestDeprecated(t *testing.T) {
	for text, want := range map[string]bool{
		"Deprecated: use B.\n":                        true,
		"A does it.\n\nDeprecated: use B.\n":          true,
		"A does it.\nDeprecated: in a paragraph.\n":   false,
		"A is not Deprecated: it says so mid-line.\n": false,
		"Deprecated:use B.\n":                         false,
		"":                                            false,
	} {
		if got := Deprecated(text); got != want {
			t.Errorf("Deprecated(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestDeclares: a top-level declaration's names are its package's, a
// method's and an import's are not.
func TestDeclares(t *testing.T) {
	const src = `package p
import (
	"fmt"
	str "strings"
)
type (
	T struct{}
	U = T
)
const A, B = 1, 2
var v = fmt.Sprint(str.ToUpper(""))
func F()   {}
func (T) M() {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range f.Decls {
		got = append(got, Declares(d)...)
	}
	if want := []string{"T", "U", "A", "B", "v", "F"}; !slices.Equal(got, want) {
		t.Errorf("declared %q, want %q", got, want)
	}
}
