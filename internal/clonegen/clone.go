package clonegen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
)

// cloner writes the clone of one function. It works on a copy of the
// function, parsed afresh, which it rewrites in place.
type cloner struct {
	p        *pkg
	name     string // the natural function's
	tsys     string // what the function's file calls package tsys
	ctx, arg string // the function's parameters
	// task: fn is a task's function, whose clone asks at its entry and
	// makes its forks calls; otherwise its clone only rewrites its closure
	// forms and calls (plain.go).
	task bool
	fset *token.FileSet
	// line converts a position in the copy into one in the package.
	line func(token.Pos) string

	// tracked holds the locals that hold a Forked or a Future, or arrays
	// and slices of them.
	tracked map[string]bool
	parent  map[ast.Node]ast.Node
	// rename holds the calls whose function becomes a clone: forks, Calls
	// and direct calls of cloned functions.
	rename map[*ast.CallExpr]string
	// value holds the calls that become an operand of theirs: Join and Get
	// (the receiver), tsys.Value (the argument); ready holds the Ready
	// calls, which become true.
	value map[*ast.CallExpr]ast.Expr
	ready map[*ast.CallExpr]bool
	errs  []error
}

// clone returns the source of fn's clone (and, for a task, of the call
// that keeps fn apart), the imports they use (local name → path), and a
// note on each of fn's closure forms.
func (p *pkg) clone(fn *ast.FuncDecl) (string, map[string]string, []Note, error) {
	file := p.fileOf[fn]
	at := p.fset.Position(fn.Pos())
	c := &cloner{p: p, name: fn.Name.Name, tsys: importName(file, tsysPath), task: !p.plain[fn.Name.Name]}
	if c.task {
		if err := c.signature(fn, at); err != nil {
			return "", nil, nil, err
		}
	}
	start, end := at.Offset, p.fset.Position(fn.End()).Offset
	text := string(p.src[file][start:end])
	c.line = func(pos token.Pos) string {
		return fmt.Sprintf("%s:%d", at.Filename, at.Line+c.fset.Position(pos).Line-2)
	}
	if c.task {
		if _, _, err := c.parse(text, at); err != nil {
			return "", nil, nil, err
		}
		if err := errors.Join(c.errs...); err != nil {
			return "", nil, nil, err
		}
	}
	text, notes, err := p.rewriteForms(c.name, c.tsys, text, at)
	if err != nil {
		return "", nil, notes, err
	}
	rewritten := 0
	for _, n := range notes {
		if n.Done {
			rewritten++
		}
	}
	cloneName := p.cloneOf[c.name]
	naturalName := c.name + naturalSuffix
	decl, f, err := c.parse(text, at)
	if err != nil {
		return "", nil, notes, err
	}
	if c.task {
		// The question goes into the text, after the guards, and the copy
		// is parsed again: every node of the clone then has a place of its
		// own, and the printer keeps each comment where the function had
		// it.
		insert := c.fset.Position(decl.Body.Lbrace).Offset + 1
		if g := c.guards(decl.Body.List); g > 0 {
			insert = c.fset.Position(decl.Body.List[g-1].End()).Offset
		}
		insert -= len(header)
		text = fmt.Sprintf("%s\nif !%s.AllowCCall() {\nreturn %s(%s, %s)\n}%s", text[:insert], c.ctx, naturalName, c.ctx, c.arg, text[insert:])
		if decl, f, err = c.parse(text, at); err != nil {
			return "", nil, notes, err
		}
	}
	rewrite(decl.Body, c.replace)
	unwrapTrue(decl.Body)
	decl.Name = ast.NewIdent(cloneName)

	var out bytes.Buffer
	source := fmt.Sprintf("%s:%d", filepath.Base(at.Filename), at.Line)
	out.WriteString("\n")
	forms := ""
	if rewritten > 0 {
		forms = fmt.Sprintf(" Its closure forms (tsys.Both, Pair, For, Fold) that the generator could prove safe ask the same question%s: on a yes their closures are not made and their bodies run as plain code; on a no the form runs as written.", map[bool]string{true: " again", false: ""}[c.task])
	}
	if c.task {
		out.WriteString(comment(fmt.Sprintf("%s is %s's fast clone, from %s: while enough tasks are ready (tsys.Ctx.AllowCCall) it runs %s's body with each fork a plain call and each join its value; otherwise it runs %s, whose forks make tasks.%s", cloneName, c.name, source, c.name, c.name, forms)))
	} else {
		out.WriteString(comment(fmt.Sprintf("%s is %s, from %s, with the cutoff written: each closure form (tsys.Both, Pair, For, Fold) the generator could prove safe asks first whether enough tasks are ready (tsys.Ctx.AllowCCall); on a yes its closures are not made and their bodies run as plain code, on a no the form runs as written. Each call of a function the package clones is a call of its clone.", cloneName, c.name, source)))
	}
	if err := format.Node(&out, c.fset, &printer.CommentedNode{Node: decl, Comments: f.Comments}); err != nil {
		return "", nil, notes, fmt.Errorf("%s: printing the clone: %w", at, err)
	}
	out.WriteString("\n")
	if !c.task {
		return out.String(), c.imports(file, decl), notes, nil
	}
	var typ bytes.Buffer
	if err := format.Node(&typ, c.fset, decl.Type); err != nil {
		return "", nil, notes, fmt.Errorf("%s: printing the clone: %w", at, err)
	}
	out.WriteString("\n")
	out.WriteString(comment(fmt.Sprintf("%s runs %s as a call that is never inlined, so that %s's frame holds only what its own body needs.", naturalName, c.name, cloneName)))
	out.WriteString("//\n//go:noinline\n")
	fmt.Fprintf(&out, "func %s%s { return %s(%s, %s) }\n", naturalName, bytes.TrimPrefix(typ.Bytes(), []byte("func")), c.name, c.ctx, c.arg)
	return out.String(), c.imports(file, decl), notes, nil
}

// signature checks that fn is a task function, func(c *tsys.Ctx, a A) R,
// and keeps its parameters' names.
func (c *cloner) signature(fn *ast.FuncDecl, at token.Position) error {
	bad := func(why string) error {
		return fmt.Errorf("%s: %s cannot be cloned: %s; a task function is func(c *tsys.Ctx, a A) R", at, c.name, why)
	}
	if c.tsys == "" {
		return bad("its file does not import " + tsysPath)
	}
	if fn.Type.TypeParams != nil {
		return bad("it is generic")
	}
	var names []*ast.Ident
	for _, f := range fn.Type.Params.List {
		names = append(names, f.Names...)
	}
	if len(names) != 2 || len(fn.Type.Params.List) != 2 {
		return bad("it does not take two parameters")
	}
	if fn.Type.Results == nil || len(fn.Type.Results.List) != 1 || len(fn.Type.Results.List[0].Names) > 1 {
		return bad("it does not return one result")
	}
	star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok || !isSelectorOf(star.X, c.tsys, "Ctx") {
		return bad("its first parameter is not a *tsys.Ctx")
	}
	if names[0].Name == "_" || names[1].Name == "_" {
		return bad("a parameter is named _: the clone passes both on, so name them")
	}
	c.ctx, c.arg = names[0].Name, names[1].Name
	return nil
}

// imports returns the imports of file that decl uses.
func (c *cloner) imports(file *ast.File, decl *ast.FuncDecl) map[string]string {
	known := map[string]string{}
	for _, imp := range file.Imports {
		path := imp.Path.Value[1 : len(imp.Path.Value)-1]
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		known[name] = path
	}
	used := map[string]string{}
	ast.Inspect(decl, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && known[id.Name] != "" {
				used[id.Name] = known[id.Name]
			}
		}
		return true
	})
	return used
}

// rewrite replaces, children first, every expression below n by what f
// returns for it. go/ast has no such walk; this one goes through the
// fields of the nodes by reflection. It must not meet an ast.Object (the
// copy is parsed without resolving objects, which would make cycles).
func rewrite(n ast.Node, f func(ast.Expr) ast.Expr) {
	rewriteValue(reflect.ValueOf(n), f)
}

var exprType = reflect.TypeFor[ast.Expr]()

func rewriteValue(v reflect.Value, f func(ast.Expr) ast.Expr) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return
		}
		if _, ok := v.Interface().(*ast.CommentGroup); ok {
			return
		}
		s := v.Elem()
		for i := range s.NumField() {
			rewriteField(s.Field(i), f)
		}
	case reflect.Interface:
		if !v.IsNil() {
			rewriteValue(v.Elem(), f)
		}
	}
}

func rewriteField(fv reflect.Value, f func(ast.Expr) ast.Expr) {
	switch fv.Kind() {
	case reflect.Interface, reflect.Pointer:
		rewriteValue(fv, f)
		if fv.Type() == exprType && !fv.IsNil() {
			fv.Set(reflect.ValueOf(f(fv.Interface().(ast.Expr))))
		}
	case reflect.Slice:
		for i := range fv.Len() {
			rewriteField(fv.Index(i), f)
		}
	}
}

// unwrapTrue turns each if statement whose condition the rewrite made true
// (a Ready) into its body, as a block of its own: the clone reads as what
// it does.
func unwrapTrue(body *ast.BlockStmt) {
	ast.Inspect(body, func(n ast.Node) bool {
		var list []ast.Stmt
		switch b := n.(type) {
		case *ast.BlockStmt:
			list = b.List
		case *ast.CaseClause:
			list = b.Body
		case *ast.CommClause:
			list = b.Body
		}
		for i, s := range list {
			if is, ok := s.(*ast.IfStmt); ok && is.Init == nil {
				if id, ok := is.Cond.(*ast.Ident); ok && id.Name == "true" {
					list[i] = is.Body
				}
			}
		}
		return true
	})
}

// header makes a function's text a file to parse.
const header = "package p\n"

// parse parses the function's text afresh and analyses it.
func (c *cloner) parse(text string, at token.Position) (*ast.FuncDecl, *ast.File, error) {
	c.fset = token.NewFileSet()
	f, err := parser.ParseFile(c.fset, at.Filename, header+text, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", at, err)
	}
	decl := f.Decls[0].(*ast.FuncDecl)
	c.analyse(decl.Body)
	return decl, f, nil
}

// comment makes text a // comment of lines of at most 76 columns.
func comment(text string) string {
	var b strings.Builder
	line := "//"
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > 76 && line != "//" {
			b.WriteString(line + "\n")
			line = "//"
		}
		line += " " + word
	}
	b.WriteString(line + "\n")
	return b.String()
}
