package methodcount

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"

	"github.com/tsys-go/tsys/internal/gosrc"
)

// A Decl is one method a type declares, or one field a struct embeds:
// its name (for an embedded field, its type's, as gosrc.TypeName gives it) and
// where it stands.
type Decl struct {
	Name string
	Pos  token.Position
}

// Types is what Read finds in a package, keyed by the name of the type
// (T for T, *T and T[P]).
type Types struct {
	// Methods are each type's declared methods, in source order.
	Methods map[string][]Decl
	// Embeds are each struct's embedded fields, in source order.
	Embeds map[string][]Decl
}

// Read parses the non-test Go files of the package in dir that build on
// this machine (go/build's choice, so that a method written once per
// platform counts once) and returns its types' methods and embedded
// fields.
func Read(dir string) (Types, error) {
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		return Types{}, fmt.Errorf("methodcount: reading the package in %s: %w", dir, err)
	}
	names := slices.Concat(pkg.GoFiles, pkg.CgoFiles)
	if len(names) == 0 {
		return Types{}, fmt.Errorf("methodcount: no Go file in %s: is dir the package's folder?", dir)
	}
	ts := Types{Methods: map[string][]Decl{}, Embeds: map[string][]Decl{}}
	fset := token.NewFileSet()
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return Types{}, fmt.Errorf("methodcount: %w", err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if r := gosrc.Receiver(d); r != "" {
					ts.Methods[r] = append(ts.Methods[r], Decl{d.Name.Name, fset.Position(d.Pos())})
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					s, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := s.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, field := range st.Fields.List {
						if len(field.Names) == 0 {
							ts.Embeds[s.Name.Name] = append(ts.Embeds[s.Name.Name], Decl{gosrc.TypeName(field.Type), fset.Position(field.Pos())})
						}
					}
				}
			}
		}
	}
	return ts, nil
}

// Names are the names of decls, in their order.
func Names(decls []Decl) []string {
	out := make([]string, len(decls))
	for i, d := range decls {
		out[i] = d.Name
	}
	return out
}
