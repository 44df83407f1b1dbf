package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// deprecatedNames returns the exported names of the package in dir whose
// doc has a "Deprecated:" paragraph, each as go doc spells it with the
// package name pkg first (tsys.Loop.Range). A name deprecated at the
// baseline has had its release of warning, so its removal needs no more
// than the word "removed".
func deprecatedNames(pkg, dir string) (map[string]bool, error) {
	out := map[string]bool{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for name := range deprecatedIn(f) {
			out[pkg+"."+name] = true
		}
	}
	return out, nil
}

// deprecatedIn yields the deprecated exported names declared in one file.
func deprecatedIn(f *ast.File) map[string]bool {
	out := map[string]bool{}
	mark := func(name string, docs ...*ast.CommentGroup) {
		for _, d := range docs {
			if isDeprecated(d) {
				out[name] = true
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if r := receiverName(d); r != "" {
				mark(r+"."+d.Name.Name, d.Doc)
			} else if d.Recv == nil {
				mark(d.Name.Name, d.Doc)
			}
		case *ast.GenDecl:
			genDeprecated(d, mark)
		}
	}
	return out
}

// genDeprecated marks the types, fields, interface methods, constants and
// variables of one declaration; a lone spec's doc is the declaration's.
func genDeprecated(d *ast.GenDecl, mark func(string, ...*ast.CommentGroup)) {
	group := d.Doc
	if d.Lparen.IsValid() {
		group = nil
	}
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			mark(s.Name.Name, group, s.Doc)
			fieldsDeprecated(s, mark)
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if n.IsExported() {
					mark(n.Name, group, s.Doc)
				}
			}
		}
	}
}

func fieldsDeprecated(s *ast.TypeSpec, mark func(string, ...*ast.CommentGroup)) {
	var fields *ast.FieldList
	switch t := s.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return
	}
	for _, fl := range fields.List {
		for _, n := range fl.Names {
			if n.IsExported() {
				mark(s.Name.Name+"."+n.Name, fl.Doc)
			}
		}
	}
}

// receiverName is the type a method is declared on, without its type
// parameters or pointer: Loop for func (l *Loop[E, R]) Range.
func receiverName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	t := d.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok && id.IsExported() {
		return id.Name
	}
	return ""
}

// isDeprecated says whether a doc comment has a paragraph that starts
// "Deprecated:", the form go doc and gopls recognise.
func isDeprecated(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	text := doc.Text()
	return strings.HasPrefix(text, "Deprecated:") || strings.Contains(text, "\n\nDeprecated:")
}
