package doccode

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"strings"
)

// Givens are the names a fragment may use without declaring them: the
// top-level declarations of one Go file, each kept with its line there.
type Givens struct {
	file    string
	imports string            // the file's imports, behind their line
	decls   map[string]string // name to its declaration, behind its line
	order   []string
}

// ParseGivens reads the givens from the Go source src, named file.
func ParseGivens(file, src string) (*Givens, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	g := &Givens{file: file, decls: map[string]string{}}
	text := func(n ast.Node) string {
		p := fset.Position(n.Pos())
		return fmt.Sprintf("//line %s:%d:%d\n%s\n", file, p.Line, p.Column, src[p.Offset:fset.Position(n.End()).Offset])
	}
	add := func(name, decl string) {
		if _, dup := g.decls[name]; dup {
			err = fmt.Errorf("%s: %s is given twice", file, name)
		}
		g.decls[name] = decl
		g.order = append(g.order, name)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				return nil, fmt.Errorf("%s: a method (%s) is no given: give its type's declaration the method in a fragment of its own", file, d.Name.Name)
			}
			add(d.Name.Name, text(d))
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ImportSpec:
					g.imports += text(s)
				case *ast.TypeSpec:
					add(s.Name.Name, d.Tok.String()+" "+text(s))
				case *ast.ValueSpec:
					if len(s.Names) != 1 {
						return nil, fmt.Errorf("%s:%d: give one name per line, so that a fragment can declare one of them itself", file, fset.Position(s.Pos()).Line)
					}
					add(s.Names[0].Name, d.Tok.String()+" "+text(s))
				}
			}
		}
	}
	return g, err
}

// source returns the givens as a file of package pkg, less the names a
// fragment declares.
func (g *Givens) source(pkg string, declares map[string]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n%s)\n\n", pkg, g.imports)
	for _, name := range g.order {
		if !declares[name] {
			b.WriteString(g.decls[name])
		}
	}
	return b.String()
}

// A Checker compiles fragments against the packages its importer reads.
type Checker struct {
	Importer types.Importer
	Givens   *Givens
	// Packages are the packages a fragment may use without importing
	// them, by the name it uses.
	Packages map[string]string
}

// Result is what checking one block found.
type Result struct {
	Block
	Go     bool     // the block is Go and was checked
	Errors []string // each "file:line:col: message", in the doc's terms
	// Uses are the objects the block's identifiers refer to, with the
	// position of each use in the doc.
	Uses []Use
}

// Use is an object a piece of code refers to, and where.
type Use struct {
	Pos    token.Position
	Object types.Object
}

// fragmentErrors are the errors a fragment cannot help: a variable or an
// import it declares for the reader and does not use.
var fragmentErrors = regexp.MustCompile(`declared and not used|imported and not used|" imported as \w+ and not used`)

// undefinedName is the error of a name no one declares (not a
// package's name the package lacks, "undefined: tsys.Foo").
var undefinedName = regexp.MustCompile(`: undefined: \w+$`)

// Check compiles the block, if it is Go, and returns what it found.
func (k *Checker) Check(b Block) Result {
	r := Result{Block: b}
	f, isGo, err := MakeFragment(b, k.Packages)
	if !isGo {
		return r
	}
	r.Go = true
	if err != nil {
		r.Errors = append(r.Errors, err.Error())
		return r
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, src := range []string{k.Givens.source(f.Package, f.Declares), f.Source} {
		file, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			r.Errors = append(r.Errors, fmt.Sprintf("%v (in the file made of %s:%d)", err, b.File, b.Line))
			return r
		}
		files = append(files, file)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: k.Importer, Error: func(err error) {
		msg := err.Error()
		if fragmentErrors.MatchString(msg) {
			return
		}
		if undefinedName.MatchString(msg) {
			msg += " (declare it in the block, or give it in " + k.Givens.file + ")"
		}
		r.Errors = append(r.Errors, msg)
	}}
	conf.Check(f.Package, fset, files, info)
	for id, obj := range info.Uses {
		if p := fset.Position(id.Pos()); p.Filename == b.File {
			r.Uses = append(r.Uses, Use{p, obj})
		}
	}
	return r
}
