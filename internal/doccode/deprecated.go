package doccode

import (
	"go/ast"
	"go/types"
	"regexp"
	"strings"

	"github.com/tsys-go/tsys/internal/gosrc"
)

// A Name is an exported identifier of a package: a top-level name, or a
// method or field of one of its types.
type Name struct {
	Pkg     string // the package's import path
	PkgName string
	Recv    string // the type of a method or field; "" at the top level
	Name    string
}

// String spells the name as go doc does, package first:
// tsys.Forked.Ready, tsys.Reduce.
func (n Name) String() string {
	if n.Recv != "" {
		return n.PkgName + "." + n.Recv + "." + n.Name
	}
	return n.PkgName + "." + n.Name
}

// Names returns the exported names that the files of one package
// declare, and which of them are deprecated: those whose doc has a
// paragraph that begins "Deprecated: ", with the fields of a deprecated
// type.
func Names(pkg, pkgName string, files []*ast.File) (live, deprecated []Name) {
	for _, f := range files {
		for _, d := range Docs(f) {
			recv, name, ok := strings.Cut(d.Name, ".")
			if !ok {
				recv, name = "", d.Name
			}
			if !ast.IsExported(name) || (recv != "" && !ast.IsExported(recv)) {
				continue
			}
			n := Name{Pkg: pkg, PkgName: pkgName, Recv: recv, Name: name}
			if d.Deprecated {
				deprecated = append(deprecated, n)
			} else {
				live = append(live, n)
			}
		}
		// A name without a doc is live: go doc shows it.
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Doc == nil && decl.Name.IsExported() {
					live = append(live, Name{Pkg: pkg, PkgName: pkgName, Recv: gosrc.Receiver(decl), Name: decl.Name.Name})
				}
			case *ast.GenDecl:
				for _, s := range decl.Specs {
					if s, ok := s.(*ast.ValueSpec); ok && s.Doc == nil && decl.Doc == nil {
						for _, id := range s.Names {
							if id.IsExported() {
								live = append(live, Name{Pkg: pkg, PkgName: pkgName, Name: id.Name})
							}
						}
					}
				}
			}
		}
	}
	return live, deprecated
}

// Object finds the name's object in pkg, as an importer made it, or nil.
func (n Name) Object(pkg *types.Package) types.Object {
	obj := pkg.Scope().Lookup(n.Recv)
	if n.Recv == "" {
		return pkg.Scope().Lookup(n.Name)
	}
	tn, ok := obj.(*types.TypeName)
	if !ok {
		return nil
	}
	if named, ok := tn.Type().(*types.Named); ok {
		for i := range named.NumMethods() {
			if m := named.Method(i); m.Name() == n.Name {
				return m
			}
		}
	}
	switch u := tn.Type().Underlying().(type) {
	case *types.Struct:
		for i := range u.NumFields() {
			if f := u.Field(i); f.Name() == n.Name {
				return f
			}
		}
	case *types.Interface:
		for i := range u.NumExplicitMethods() {
			if m := u.ExplicitMethod(i); m.Name() == n.Name {
				return m
			}
		}
	}
	return nil
}

// Origin is the object a use refers to before instantiation: a method of
// Task[int, int] is Task[A, R]'s.
func Origin(obj types.Object) types.Object {
	switch o := obj.(type) {
	case *types.Func:
		return o.Origin()
	case *types.Var:
		return o.Origin()
	}
	return obj
}

// Prose finds deprecated names in text written for people, where no
// type checker resolves them: a method or field as Type.Name, anything
// as pkg.Name, and a top-level name alone where nothing live shares its
// spelling (Reduce; not Join, which is also Forked's method) and the
// text marks it as code, in a Markdown code span or in a doc comment (a
// capital mid-sentence: a sentence may begin with Map, as a word).
type Prose struct {
	names []proseName
}

type proseName struct {
	Name
	qualified *regexp.Regexp // Type.Name or pkg.Name
	bare      *regexp.Regexp // a top-level Name alone, or nil when it is ambiguous
	method    *regexp.Regexp // a method or field Name alone, or nil when it is ambiguous
}

// NewProse makes a Prose for the deprecated names, given the live ones
// that may share their spelling.
func NewProse(deprecated, live []Name) *Prose {
	liveName := map[string]bool{}
	for _, n := range live {
		liveName[n.Name] = true
	}
	p := &Prose{}
	for _, n := range deprecated {
		pn := proseName{Name: n}
		if n.Recv != "" {
			pn.qualified = regexp.MustCompile(`\b(` + n.PkgName + `\.)?` + n.Recv + `\.` + n.Name + `\b`)
			if !liveName[n.Name] {
				pn.method = regexp.MustCompile(`(^|[^.\w])` + n.Name + `\b`)
			}
		} else {
			pn.qualified = regexp.MustCompile(`\b` + n.PkgName + `\.` + n.Name + `\b`)
			if !liveName[n.Name] {
				pn.bare = regexp.MustCompile(`(^|[^.\w])` + n.Name + `\b`)
			}
		}
		p.names = append(p.names, pn)
	}
	return p
}

// Markdown returns the deprecated names a line of Markdown prose names.
func (p *Prose) Markdown(line string) []Name {
	var found []Name
	for _, n := range p.names {
		hit := n.qualified.MatchString(line)
		if !hit && n.bare != nil {
			for _, span := range codeSpan.FindAllStringSubmatch(line, -1) {
				if n.bare.MatchString(span[1]) {
					hit = true
				}
			}
		}
		if hit {
			found = append(found, n.Name)
		}
	}
	return found
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// A Hit is a deprecated name found in a text, at a byte offset.
type Hit struct {
	Name
	Offset int
}

// Comment returns the deprecated names the prose of a doc comment's
// text names (its code blocks are the type checker's). A bare name counts
// mid-sentence only; in the doc of a type or of its methods and fields
// (recv), the type's own deprecated methods count bare too (Pool, in
// Runtime's doc), unless a live name shares their spelling.
func (p *Prose) Comment(text, recv string) []Hit {
	// Blank out the code blocks, the lines indented by a tab, keeping
	// the offsets.
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "\t") {
			lines[i] = strings.Repeat(" ", len(l)-1) + "\n"
		}
	}
	text = strings.Join(lines, "")
	var hits []Hit
	for _, n := range p.names {
		for _, m := range n.qualified.FindAllStringIndex(text, -1) {
			hits = append(hits, Hit{n.Name, m[0]})
		}
		bare := n.bare
		if n.Recv != "" && n.Recv == recv {
			bare = n.method
		}
		if bare == nil {
			continue
		}
		for _, m := range bare.FindAllStringIndex(text, -1) {
			at := m[1] - len(n.Name.Name)
			if !sentenceStart(text[:at]) {
				hits = append(hits, Hit{n.Name, at})
			}
		}
	}
	return hits
}

// sentenceStart says whether a word after before begins a sentence.
func sentenceStart(before string) bool {
	b := strings.TrimRight(before, " \t\n")
	return b == "" || strings.HasSuffix(b, ".") || strings.HasSuffix(b, ":") || strings.HasSuffix(b, "?") || strings.HasSuffix(b, "!")
}
