package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"

	"github.com/tsys-go/tsys/internal/gosrc"
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
			if d != nil && gosrc.Deprecated(d.Text()) {
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
			if r := gosrc.Receiver(d); token.IsExported(r) {
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
