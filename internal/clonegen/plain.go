package clonegen

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strings"

	"github.com/tsys-go/tsys/internal/gosrc"
)

// Plain clones: the clone of a function that is no task.
//
// A function written with the closure forms (Both, Pair, For, Fold) need
// not be a task: it takes a *tsys.Ctx and any other parameters, and runs
// inside tsys.Do or a task. The program asks for its clone by calling it:
// sumClone, named anywhere in the package (its tests included), makes the
// generator write sumClone from sum, with sum's closure forms rewritten
// (forms.go) and its calls of functions the package clones made calls of
// their clones, so that the recursion stays in the clones. Unlike a task's
// clone it asks no question at its entry: each rewritten form asks its own.

// plainClones finds, in files, the names fooClone of functions foo of the
// package that take a *tsys.Ctx and are no task's clone, and notes them
// to be cloned. A fooClone the package declares itself is its own.
func (p *pkg) plainClones(files []*ast.File) {
	declared := map[string]bool{}
	for _, f := range files {
		if p.src[f] == nil {
			continue // a test's declarations are not the package's
		}
		for _, d := range f.Decls {
			for _, name := range gosrc.Declares(d) {
				declared[name] = true
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || !strings.HasSuffix(id.Name, cloneSuffix) || declared[id.Name] {
				return true
			}
			base := strings.TrimSuffix(id.Name, cloneSuffix)
			fd := p.funcs[base]
			if _, done := p.cloneOf[base]; done || fd == nil || !p.takesCtx(fd) {
				return true
			}
			p.cloneOf[base] = id.Name
			p.plain[base] = true
			p.natural = append(p.natural, fd)
			return true
		})
	}
}

// takesCtx reports whether fd has a parameter of type *tsys.Ctx.
func (p *pkg) takesCtx(fd *ast.FuncDecl) bool {
	tsysName := importName(p.fileOf[fd], tsysPath)
	for _, f := range fd.Type.Params.List {
		if isCtxType(f.Type, tsysName) {
			return true
		}
	}
	return false
}

// uncloned notes, for each function of the package that takes a
// *tsys.Ctx and runs a closure form but has no clone, how to ask for one.
func (p *pkg) uncloned() []Note {
	var notes []Note
	for _, fd := range p.funcs {
		if _, cloned := p.cloneOf[fd.Name.Name]; cloned || fd.Body == nil || !p.takesCtx(fd) {
			continue
		}
		tsysName := importName(p.fileOf[fd], tsysPath)
		var first token.Pos
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && first == token.NoPos {
				if sel, ok := unindex(call.Fun).(*ast.SelectorExpr); ok && isSelectorOf(sel, tsysName, sel.Sel.Name) && formArgs[sel.Sel.Name] > 0 {
					first = call.Pos()
				}
			}
			return first == token.NoPos
		})
		if first != token.NoPos {
			pos := p.fset.Position(first)
			notes = append(notes, Note{Pos: fmt.Sprintf("%s:%d", pos.Filename, pos.Line), Func: fd.Name.Name,
				Why: "runs closure forms but has no clone: call " + fd.Name.Name + cloneSuffix + " where it is called for go generate to write one"})
		}
	}
	sort.Slice(notes, func(i, j int) bool { return notes[i].Pos < notes[j].Pos })
	return notes
}
