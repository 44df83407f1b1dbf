package clonegen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// Closure forms: the cutoff the generator writes.
//
// tsys.Both, Pair, For and Fold take closures, which escape to the heap
// because the form may make them a task: a closure costs an allocation per
// call, and so does every variable it writes, even when the form, asked
// whether enough tasks are ready, runs them here as plain calls. In a
// clone, a form whose closures the generator can prove safe becomes
//
//	if c.AllowCCall() {
//		... the closures' bodies, here, as plain code ...
//	} else {
//		... the form as written ...
//	}
//
// so the closures are made only on a no. The yes path is what the form
// itself does on a yes for Both and Pair: f, then g, here, with no task.
// The bodies run with the Ctx of the code around the form, which is
// theirs to use on that path: no closure body is running. A For or Fold
// on a yes calls its body once over the whole range, one piece, which its
// contract allows; but the form itself asks again between chunks and cuts
// pieces for idle workers, which one plain call cannot, so a loop is
// rewritten only when its body asks again: it calls a clone, forks a
// task, or runs a closure form.
//
// The no path must not bring back the cost it avoids: a variable a
// closure captures by reference (one it writes, or one the function
// assigns anywhere) lives on the heap from its declaration, on both paths.
// So the no path gives the closures a copy of it, declared there, and
// copies back what they may have written. Only a variable used as a plain
// value, assigned or indexed is copied: one whose address is taken, which
// is sliced or whose method or field is used may be reached other than by
// its name (a method's pointer receiver, a value that points into
// itself), and a copy would not keep that; it stays captured as written,
// as does one that a closure outside the form uses (capturedElsewhere).

// formArgs is the number of arguments of each closure form the rewrite
// knows, without loop options; Join is Both's deprecated name.
var formArgs = map[string]int{"Both": 3, "Join": 3, "Pair": 3, "For": 4, "Fold": 6}

// Note says what became of one closure form, or why a function's forms
// were not rewritten: tsysclone -v prints them.
type Note struct {
	Pos  string // file:line
	Func string // the function the form is in
	Form string // tsys.Both, ...; "" for a note on the whole function
	Done bool   // rewritten
	Why  string
}

func (n Note) String() string {
	switch {
	case n.Form == "":
		return fmt.Sprintf("%s: %s: %s", n.Pos, n.Func, n.Why)
	case n.Done:
		return fmt.Sprintf("%s: %s: %s rewritten: %s", n.Pos, n.Func, n.Form, n.Why)
	}
	return fmt.Sprintf("%s: %s: %s left as written: %s", n.Pos, n.Func, n.Form, n.Why)
}

// formPass rewrites the closure forms of one function, given as text.
type formPass struct {
	p    *pkg
	name string // the function's
	tsys string // what its file calls package tsys
	at   token.Position
	text string

	// What the last parse of text found.
	fset   *token.FileSet
	decl   *ast.FuncDecl
	res    *resolution
	uses   map[*object][]*ast.Ident
	parent map[ast.Node]ast.Node
	names  map[string]bool // every identifier's name in the function

	notes []Note
}

// rewriteForms returns text, the source of function name from at, with
// its closure forms rewritten, and a note on each.
//
// The text is rewritten one form at a time, the last in it first, and
// parsed again after each: a form nested in another's closure is then
// rewritten before the closure is copied into both paths, every position
// before the form stays where it was (so a note names the line the
// package has), and every new form the rewrite writes, in a no path,
// comes after it and is never visited.
func (p *pkg) rewriteForms(name, tsysName, text string, at token.Position) (string, []Note, error) {
	f := &formPass{p: p, name: name, tsys: tsysName, at: at, text: text}
	limit := len(text) // forms at or after it are done
	for {
		if err := f.parse(); err != nil {
			return "", nil, err
		}
		var call *ast.CallExpr
		var form string
		ast.Inspect(f.decl.Body, func(n ast.Node) bool {
			ce, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if name := f.formOf(ce); name != "" && f.off(ce.Pos()) < limit && (call == nil || ce.Pos() > call.Pos()) {
				call, form = ce, name
			}
			return true
		})
		if call == nil {
			sort.SliceStable(f.notes, func(i, j int) bool { return lineOf(f.notes[i].Pos) < lineOf(f.notes[j].Pos) })
			return f.text, f.notes, nil
		}
		limit = f.off(call.Pos())
		note := Note{Pos: f.line(call.Pos()), Func: name, Form: f.tsys + "." + form}
		from, to, code, why := f.rewrite(call, form)
		note.Done, note.Why = code != "", why
		f.notes = append(f.notes, note)
		if code != "" {
			limit = min(limit, from)
			f.text = f.text[:from] + code + f.text[to:]
		}
	}
}

// lineOf is the line of a note's position, file:line.
func lineOf(pos string) int {
	n, _ := strconv.Atoi(pos[strings.LastIndexByte(pos, ':')+1:])
	return n
}

// formOf names the closure form call is, or "".
func (f *formPass) formOf(call *ast.CallExpr) string {
	sel, ok := unindex(call.Fun).(*ast.SelectorExpr)
	if !ok || f.tsys == "" || f.tsys == "." {
		return ""
	}
	if x, ok := sel.X.(*ast.Ident); !ok || x.Name != f.tsys {
		return ""
	}
	if n, ok := formArgs[sel.Sel.Name]; ok && len(call.Args) >= n {
		return sel.Sel.Name
	}
	return ""
}

func (f *formPass) parse() error {
	f.fset = token.NewFileSet()
	file, err := parser.ParseFile(f.fset, f.at.Filename, header+f.text, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return fmt.Errorf("%s: rewriting the closure forms (a bug in clonegen): %w", f.at, err)
	}
	f.decl = file.Decls[0].(*ast.FuncDecl)
	f.res = resolve(f.decl, f.tsys)
	f.uses = map[*object][]*ast.Ident{}
	for id, o := range f.res.uses {
		f.uses[o] = append(f.uses[o], id)
	}
	f.parent = parents(f.decl)
	f.names = map[string]bool{}
	ast.Inspect(f.decl, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			f.names[id.Name] = true
		}
		return true
	})
	return nil
}

// parents maps every node below n to its parent.
func parents(n ast.Node) map[ast.Node]ast.Node {
	parent := map[ast.Node]ast.Node{}
	var stack []ast.Node
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if len(stack) > 0 {
			parent[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		return true
	})
	return parent
}

// off is pos as an offset in text.
func (f *formPass) off(pos token.Pos) int { return f.fset.Position(pos).Offset - len(header) }

// line names pos's line in the package's file.
func (f *formPass) line(pos token.Pos) string {
	return fmt.Sprintf("%s:%d", f.at.Filename, f.at.Line+f.fset.Position(pos).Line-2)
}

// src is n's source.
func (f *formPass) src(n ast.Node) string { return f.text[f.off(n.Pos()):f.off(n.End())] }

// edit replaces a node's source.
type edit struct {
	n    ast.Node
	text string
}

// srcEdited is n's source with the edits below it made.
func (f *formPass) srcEdited(n ast.Node, edits []edit) string {
	sort.Slice(edits, func(i, j int) bool { return edits[i].n.Pos() < edits[j].n.Pos() })
	var b strings.Builder
	at := f.off(n.Pos())
	for _, e := range edits {
		b.WriteString(f.text[at:f.off(e.n.Pos())])
		b.WriteString(e.text)
		at = f.off(e.n.End())
	}
	b.WriteString(f.text[at:f.off(n.End())])
	return b.String()
}

// fresh returns a name like base that no identifier of the function has.
func (f *formPass) fresh(base string) string {
	for i := 1; ; i++ {
		name := fmt.Sprintf("%s%d", base, i)
		if !f.names[name] {
			f.names[name] = true
			return name
		}
	}
}

// rewrite returns the code that replaces text[from:to] for the form call
// and what it does, or no code and why the form is left as written.
func (f *formPass) rewrite(call *ast.CallExpr, form string) (from, to int, code, why string) {
	stmt, why := f.statement(call, form)
	if why != "" {
		return 0, 0, "", why
	}
	ctx, why := f.ctx(call)
	if why != "" {
		return 0, 0, "", why
	}
	if form == "Join" {
		form = "Both"
	}
	if len(call.Args) > formArgs[form] {
		return 0, 0, "", "a loop option (Grain, Factoring) fixes how its range is cut, which one plain call would not keep"
	}
	// The closures, and the function values a Fold calls.
	var lits []*ast.FuncLit
	var body *ast.FuncLit
	litArgs := map[string][]int{"Both": {1, 2}, "Pair": {1, 2}, "For": {3}, "Fold": {4}}[form]
	names := []string{"f", "g"}
	if form == "For" || form == "Fold" {
		names = []string{"body"}
	}
	for i, a := range litArgs {
		lit, ok := call.Args[a].(*ast.FuncLit)
		if !ok {
			return 0, 0, "", fmt.Sprintf("%s is not a func literal, so the generator cannot see what it runs: write the closure in the call", names[i])
		}
		lits = append(lits, lit)
	}
	if form == "Fold" {
		body = lits[0]
		for i, a := range []int{3, 5} {
			switch x := call.Args[a].(type) {
			case *ast.FuncLit:
				lits = append(lits, x)
			case *ast.Ident:
			default:
				return 0, 0, "", fmt.Sprintf("its %s is neither a func literal nor a name, so the plain path, which does not call it, would not evaluate it", []string{"identity", "combine"}[i])
			}
		}
	}
	if form == "For" {
		body = lits[0]
	}
	if why := f.shapes(form, call); why != "" {
		return 0, 0, "", why
	}
	for _, lit := range lits {
		if id := f.capturedCtx(lit); id != nil {
			return 0, 0, "", fmt.Sprintf("a closure uses %s, the Ctx of the code around the form, which panics inside a closure body: use the closure's own parameter", id.Name)
		}
	}
	if body != nil && !f.asksAgain(body) {
		return 0, 0, "", "its body asks no question of its own (it calls no clone, forks no task and runs no closure form), so one plain call would run the whole range on one answer, where the form cuts pieces for idle workers between chunks; its closure is made once per loop, not once per iteration"
	}

	// The no path: the form as written, its closures given copies of the
	// variables that would otherwise live on the heap.
	sh := f.shadows(lits)
	var edits []edit
	for id, name := range sh.rename {
		edits = append(edits, edit{id, name})
	}
	var b strings.Builder
	var pre, after string
	var targets []string
	var lo, hi string
	if form == "For" || form == "Fold" {
		var named []edit
		lo, hi, pre, named = f.bounds(call)
		edits = append(edits, named...)
	}
	if form == "Pair" || form == "Fold" {
		types := []string{}
		for _, lit := range lits[:len(litArgs)] {
			types = append(types, f.src(lit.Type.Results.List[0].Type))
		}
		var decl string
		targets, decl, after, why = f.results(stmt, call, types)
		if why != "" {
			return 0, 0, "", why
		}
		pre += decl
	}
	noPath := f.srcEdited(call, edits)
	if targets != nil {
		noPath = strings.Join(targets, ", ") + " = " + noPath
	}

	b.WriteString(pre)
	fmt.Fprintf(&b, "if %s.AllowCCall() {\n", ctx)
	switch form {
	case "Both":
		b.WriteString(f.plain(lits[0], ctx, ""))
		b.WriteString(f.plain(lits[1], ctx, ""))
	case "Pair":
		b.WriteString(f.plain(lits[0], ctx, targets[0]))
		b.WriteString(f.plain(lits[1], ctx, targets[1]))
	case "For":
		fmt.Fprintf(&b, "if %s < %s {\n%s(%s, %s, %s)\n}\n", lo, hi, f.src(body), ctx, lo, hi)
	case "Fold":
		acc := targets[0]
		switch id := call.Args[3].(type) {
		case *ast.FuncLit:
			b.WriteString(f.plain(id, "", acc))
		default:
			fmt.Fprintf(&b, "%s = %s()\n", acc, f.src(id))
		}
		fmt.Fprintf(&b, "if %s < %s {\n%s = %s(%s, %s, %s, %s)\n}\n", lo, hi, acc, f.src(body), ctx, lo, hi, acc)
	}
	b.WriteString("} else {\n")
	b.WriteString(sh.before)
	b.WriteString(noPath + "\n")
	b.WriteString(sh.after)
	b.WriteString("}")
	if after != "" {
		b.WriteString("\n" + strings.TrimSuffix(after, "\n"))
	}
	why = "its closures are made only when the policy says no; while enough tasks are ready "
	switch form {
	case "Both", "Pair":
		why += "their bodies run here as plain code"
	default:
		why += "its body is called once, here, over the whole range"
	}
	if len(sh.kept) > 0 {
		why += fmt.Sprintf("; %s stays captured on the no path, and so on the heap, since %s", strings.Join(sh.kept, ", "), "a copy of it would not keep its address, a method's receiver, a slice of it or what another closure reads and writes of it")
	}
	return f.off(stmt.Pos()), f.off(stmt.End()), b.String(), why
}

// statement returns the statement that holds the form call, of a shape
// the rewrite keeps the meaning of, or why not.
func (f *formPass) statement(call *ast.CallExpr, form string) (ast.Stmt, string) {
	if f.deferred(call) {
		return nil, "it is in a go or defer statement, or in a closure one runs"
	}
	var stmt ast.Stmt
	switch p := f.parent[call].(type) {
	case *ast.ExprStmt:
		if form != "Pair" {
			stmt = p
		}
	case *ast.AssignStmt:
		if (form == "Pair" || form == "Fold") && len(p.Rhs) == 1 && idents(p.Lhs) && (form == "Fold" || p.Tok == token.DEFINE || p.Tok == token.ASSIGN) {
			stmt = p
		}
	case *ast.ReturnStmt:
		if (form == "Pair" || form == "Fold") && len(p.Results) == 1 {
			stmt = p
		}
	case *ast.ValueSpec:
		if gd, ok := f.parent[p].(*ast.GenDecl); ok && len(gd.Specs) == 1 && len(p.Values) == 1 && (form == "Pair" || form == "Fold") {
			stmt, _ = f.parent[gd].(*ast.DeclStmt)
		}
	}
	if stmt == nil {
		if form == "Pair" || form == "Fold" {
			return nil, "it is not the whole right side of an assignment to names, a var or a return: the rewrite would change when the statement's other parts run; assign its results to names first"
		}
		return nil, "it is not a statement of its own"
	}
	switch block := f.parent[stmt].(type) {
	case *ast.BlockStmt:
		if is, ok := f.parent[block].(*ast.IfStmt); ok && is.Else == block {
			if q, ok := is.Cond.(*ast.CallExpr); ok && len(q.Args) == 0 {
				if sel, ok := q.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "AllowCCall" && exprString(sel.X) == exprString(call.Args[0]) {
					return nil, "it is already in the else of an if " + exprString(q) + " {"
				}
			}
		}
	case *ast.CaseClause, *ast.CommClause:
	default:
		return nil, "it is not a statement of its own in a block (it is a label's, or an if's, for's or switch's first statement)"
	}
	return stmt, ""
}

// deferred reports whether n is in a go or defer statement, or in a
// closure one of them runs: code that may run on another goroutine, or
// after the function's Ctx is done, where the form and the question
// would not mean what they mean here.
func (f *formPass) deferred(n ast.Node) bool {
	for p := f.parent[n]; p != nil; p = f.parent[p] {
		switch p.(type) {
		case *ast.GoStmt, *ast.DeferStmt:
			return true
		}
	}
	return false
}

// idents reports whether every expression of list is a name.
func idents(list []ast.Expr) bool {
	for _, e := range list {
		if _, ok := e.(*ast.Ident); !ok {
			return false
		}
	}
	return true
}

// ctx returns the name of the form's Ctx, or why it is not one the plain
// path may use: the *tsys.Ctx parameter of the function or closure the
// form is in.
func (f *formPass) ctx(call *ast.CallExpr) (string, string) {
	id, ok := call.Args[0].(*ast.Ident)
	if !ok {
		return "", "its Ctx, " + exprString(call.Args[0]) + ", is not a name"
	}
	o := f.res.uses[id]
	var fn ast.Node
	for p := f.parent[call]; p != nil && fn == nil; p = f.parent[p] {
		switch p.(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			fn = p
		}
	}
	var params *ast.FieldList
	switch x := fn.(type) {
	case *ast.FuncLit:
		params = x.Type.Params
	case *ast.FuncDecl:
		params = x.Type.Params
	}
	if o == nil || !o.ctx || params == nil || o.decl.Pos() < params.Pos() || o.decl.End() > params.End() {
		return "", fmt.Sprintf("its Ctx, %s, is not the *tsys.Ctx parameter of the function or closure it is in", id.Name)
	}
	return id.Name, ""
}

// shapes checks that the form's closures have its signature, which the
// code the rewrite writes for them assumes; a program where they do not
// does not compile.
func (f *formPass) shapes(form string, call *ast.CallExpr) string {
	want := map[string][]struct {
		arg, params, results int
	}{
		"Both": {{1, 1, 0}, {2, 1, 0}},
		"Pair": {{1, 1, 1}, {2, 1, 1}},
		"For":  {{3, 3, 0}},
		"Fold": {{3, 0, 1}, {4, 4, 1}, {5, 2, 1}},
	}[form]
	for _, w := range want {
		lit, ok := call.Args[w.arg].(*ast.FuncLit)
		if !ok {
			continue
		}
		if count(lit.Type.Params) != w.params || count(lit.Type.Results) != w.results || (lit.Type.Results != nil && len(lit.Type.Results.List) != w.results) {
			return fmt.Sprintf("a closure has %d parameters and %d results, not %s's", count(lit.Type.Params), count(lit.Type.Results), form)
		}
	}
	return ""
}

// count is the number of fields a list declares.
func count(list *ast.FieldList) int {
	if list == nil {
		return 0
	}
	return list.NumFields()
}

// capturedCtx returns an identifier in lit that names a *tsys.Ctx
// declared outside it, or nil.
func (f *formPass) capturedCtx(lit *ast.FuncLit) (found *ast.Ident) {
	ast.Inspect(lit, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && found == nil {
			if o := f.res.uses[id]; o != nil && o.ctx && !within(o.decl, lit) {
				found = id
			}
		}
		return found == nil
	})
	return found
}

// within reports whether n lies inside outer.
func within(n, outer ast.Node) bool { return n.Pos() >= outer.Pos() && n.End() <= outer.End() }

// asksAgain reports whether body asks the policy again: it calls a
// function the package clones, forks or calls a registered task, runs a
// closure form, or asks itself.
func (f *formPass) asksAgain(body *ast.FuncLit) bool {
	asks := false
	ast.Inspect(body.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || asks {
			return !asks
		}
		switch fun := unindex(call.Fun).(type) {
		case *ast.Ident:
			_, asks = f.p.cloneOf[fun.Name]
			asks = asks && f.res.uses[fun] == nil
		case *ast.SelectorExpr:
			switch m := fun.Sel.Name; {
			case f.formOf(call) != "", m == "AllowCCall":
				asks = true
			case m == "Fork" || m == "Spawn" || m == "Call":
				asks = f.p.tasks[exprString(fun.X)]
			}
		}
		return !asks
	})
	return asks
}

// bounds returns what the plain path and the no path use for a loop's lo
// and hi: their source when it has no effect, so that each path may
// evaluate it once as the form did, else a name, declared first (decl),
// in order, which the no path's call uses (named).
func (f *formPass) bounds(call *ast.CallExpr) (lo, hi, decl string, named []edit) {
	var names, values []string
	name := func(e ast.Expr, base string) string {
		if pure(e) {
			return f.src(e)
		}
		n := f.fresh(base)
		names, values = append(names, n), append(values, f.src(e))
		named = append(named, edit{e, n})
		return n
	}
	lo = name(call.Args[1], "lo")
	hi = name(call.Args[2], "hi")
	if len(names) > 0 {
		decl = strings.Join(names, ", ") + " := " + strings.Join(values, ", ") + "\n"
	}
	return lo, hi, decl, named
}

// pure reports whether e has no effect, so that evaluating it in place of
// its single evaluation changes nothing: names, constants, selectors,
// indexing, operators and len and cap.
func pure(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			id, isIdent := x.Fun.(*ast.Ident)
			ok = ok && isIdent && (id.Name == "len" || id.Name == "cap")
		case *ast.UnaryExpr:
			ok = ok && x.Op != token.ARROW
		case *ast.FuncLit, *ast.CompositeLit:
			ok = false
		}
		return ok
	})
	return ok
}

// results returns the names a Pair's or Fold's results are assigned to,
// the declarations before the rewrite, and the statement after it.
// `a, b := tsys.Pair(...)` declares a and b before, as what the closures
// return, when they are new and the closures do not name them; any other
// statement gets names of its own, and after it, its call replaced by
// them.
func (f *formPass) results(stmt ast.Stmt, call *ast.CallExpr, typs []string) (targets []string, decl, after, why string) {
	var b strings.Builder
	if as, ok := stmt.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == len(typs) && !f.mentions(call, as.Lhs) {
		own := true
		for _, l := range as.Lhs {
			id := l.(*ast.Ident)
			own = own && (id.Name == "_" || f.res.decls[id] != nil)
		}
		if own {
			var declared []string
			for i, l := range as.Lhs {
				if id := l.(*ast.Ident); id.Name != "_" {
					declared = append(declared, id.Name)
					if i == len(as.Lhs)-1 || typs[i] != typs[i+1] || as.Lhs[i+1].(*ast.Ident).Name == "_" {
						fmt.Fprintf(&b, "var %s %s\n", strings.Join(declared, ", "), typs[i])
						declared = nil
					}
				}
				targets = append(targets, l.(*ast.Ident).Name)
			}
			return targets, b.String(), "", ""
		}
	}
	var lhs []ast.Expr
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		lhs = s.Lhs
	case *ast.DeclStmt:
		for _, id := range s.Decl.(*ast.GenDecl).Specs[0].(*ast.ValueSpec).Names {
			lhs = append(lhs, id)
		}
	}
	for i, t := range typs {
		base := "r"
		if i < len(lhs) && len(lhs) == len(typs) {
			if id := lhs[i].(*ast.Ident); id.Name != "_" {
				base = id.Name
			}
		}
		name := f.fresh(base)
		fmt.Fprintf(&b, "var %s %s\n", name, t)
		targets = append(targets, name)
	}
	after = f.srcEdited(stmt, []edit{{call, strings.Join(targets, ", ")}}) + "\n"
	if _, ok := stmt.(*ast.ExprStmt); ok {
		after = "_ = " + targets[0] + "\n"
	}
	return targets, b.String(), after, ""
}

// mentions reports whether any of the names of list occurs in n.
func (f *formPass) mentions(n ast.Node, list []ast.Expr) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok {
			for _, l := range list {
				if l.(*ast.Ident).Name == id.Name && id.Name != "_" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// plain returns the code that runs lit's body here, with the Ctx ctx as
// its parameter (none if ctx is ""), and assigns its result to target (if
// not ""): the body itself when it is straight-line code, else a call of
// the literal, which Go inlines where it can and which does not escape.
func (f *formPass) plain(lit *ast.FuncLit, ctx, target string) string {
	if code, ok := f.splice(lit, ctx, target); ok {
		return code
	}
	call := f.src(lit) + "(" + ctx + ")"
	if target == "" {
		return call + "\n"
	}
	return target + " = " + call + "\n"
}

// splice returns lit's body as statements of the function, if it can be
// one: no return but, when it has a result, a last statement that returns
// it; no defer, label, goto or recover, whose meaning a function's body
// and a closure's differ in.
func (f *formPass) splice(lit *ast.FuncLit, ctx, target string) (string, bool) {
	list := lit.Body.List
	end := lit.Body.Rbrace
	var result ast.Expr
	if target != "" {
		if len(list) == 0 {
			return "", false
		}
		r, ok := list[len(list)-1].(*ast.ReturnStmt)
		if !ok || len(r.Results) != 1 || !straight(r.Results[0]) {
			return "", false
		}
		result, end, list = r.Results[0], r.Pos(), list[:len(list)-1]
	}
	for _, s := range list {
		if !straight(s) {
			return "", false
		}
	}
	bind := ""
	if lit.Type.Params != nil && len(lit.Type.Params.List) > 0 && len(lit.Type.Params.List[0].Names) > 0 {
		p := lit.Type.Params.List[0].Names[0]
		if o := f.res.decls[p]; o != nil && p.Name != ctx && len(f.uses[o]) > 0 {
			bind = p.Name + " := " + ctx + "\n"
		}
	}
	block := bind != "" || declares(list)
	var b strings.Builder
	if block {
		b.WriteString("{\n")
	}
	b.WriteString(bind)
	if body := strings.TrimSpace(f.text[f.off(lit.Body.Lbrace)+1 : f.off(end)]); body != "" {
		b.WriteString(body + "\n")
	}
	if result != nil && (target != "_" || !pure(result)) {
		b.WriteString(target + " = " + f.src(result) + "\n")
	}
	if block {
		b.WriteString("}\n")
	}
	return b.String(), true
}

// straight reports whether n, outside the closures in it, has no return,
// defer, label, goto or call of recover.
func straight(n ast.Node) bool {
	ok := true
	ast.Inspect(n, func(m ast.Node) bool {
		switch x := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt, *ast.DeferStmt, *ast.LabeledStmt:
			ok = false
		case *ast.BranchStmt:
			ok = ok && x.Label == nil && x.Tok != token.GOTO
		case *ast.CallExpr:
			if id, isIdent := x.Fun.(*ast.Ident); isIdent && id.Name == "recover" {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// declares reports whether a statement of list declares a name in the
// block it is in.
func declares(list []ast.Stmt) bool {
	for _, s := range list {
		switch x := s.(type) {
		case *ast.DeclStmt:
			return true
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				return true
			}
		}
	}
	return false
}

// shadowing is what the no path does with the variables the closures
// capture: the copies it declares before the form (before), what it
// copies back after it (after), and the closures' identifiers that name
// a copy of another name (rename); kept lists the variables that needed
// a copy and could not have one.
type shadowing struct {
	before, after string
	rename        map[*ast.Ident]string
	kept          []string
}

// shadows decides the copies of the variables the closures lits capture.
// A variable needs one when a closure captures it by reference, so that
// it would live on the heap on both paths: the closures write it, or the
// function assigns it anywhere. A copy is safe when the variable is used,
// everywhere in the function, by its name alone: as a value, assigned, or
// indexed (see the top of this file), and by no closure the form's may
// call (capturedElsewhere).
func (f *formPass) shadows(lits []*ast.FuncLit) shadowing {
	sh := shadowing{rename: map[*ast.Ident]string{}}
	type capture struct {
		o       *object
		written bool
		ids     []*ast.Ident
	}
	var order []*capture
	byObj := map[*object]*capture{}
	for _, lit := range lits {
		ast.Inspect(lit, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			o := f.res.uses[id]
			if o == nil || o.kind != varObj || o.ctx || within(o.decl, lit) {
				return true
			}
			c := byObj[o]
			if c == nil {
				c = &capture{o: o}
				byObj[o] = c
				order = append(order, c)
			}
			c.ids = append(c.ids, id)
			if f.role(id) == roleWrite {
				c.written = true
			}
			return true
		})
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].o.decl.Pos() < order[j].o.decl.Pos() })
	var before, after strings.Builder
	for _, c := range order {
		reassigned, safe := false, true
		for _, id := range f.uses[c.o] {
			switch f.role(id) {
			case roleWrite:
				reassigned = true
			case roleOther:
				safe = false
			}
			if f.capturedElsewhere(id, c.o, lits) {
				safe = false
			}
		}
		if !c.written && !reassigned {
			continue // captured by value: no heap
		}
		if !safe {
			sh.kept = append(sh.kept, c.o.name)
			continue
		}
		if !c.written {
			fmt.Fprintf(&before, "%s := %s\n", c.o.name, c.o.name)
			continue
		}
		copyName := f.fresh(c.o.name)
		fmt.Fprintf(&before, "%s := %s\n", copyName, c.o.name)
		fmt.Fprintf(&after, "%s = %s\n", c.o.name, copyName)
		for _, id := range c.ids {
			sh.rename[id] = copyName
		}
	}
	sh.before, sh.after = before.String(), after.String()
	return sh
}

// capturedElsewhere reports whether id, a use of the variable o, is in a
// closure the form's closures lits may call, or that may run beside them:
// a func literal between id and o's declaration that is not one of lits
// (nor inside one), nor a closure of another form run where it stands
// (which runs only within that form, before or after this one). Such a
// closure reads and writes o itself, never the copy the no path gives
// lits, so the variable stays captured: a closure of the form that wrote
// it and then called one that reads it would read a stale value. So does
// a goroutine a closure of the form starts, which may use the copy after
// it was copied back.
func (f *formPass) capturedElsewhere(id *ast.Ident, o *object, lits []*ast.FuncLit) bool {
	for _, lit := range lits {
		if within(id, lit) {
			return f.inGo(id, lit)
		}
	}
	for n := f.parent[id]; n != nil; n = f.parent[n] {
		lit, ok := n.(*ast.FuncLit)
		if !ok {
			continue
		}
		if within(o.decl, lit) {
			return false
		}
		if call, ok := f.parent[lit].(*ast.CallExpr); ok && f.formOf(call) != "" && !f.deferred(call) {
			continue
		}
		return true
	}
	return false
}

// inGo reports whether n is in a go statement inside lit: a goroutine
// that may write the variable after the form has returned and the no
// path has copied the variable back.
func (f *formPass) inGo(n ast.Node, lit *ast.FuncLit) bool {
	for p := f.parent[n]; p != nil && p != lit; p = f.parent[p] {
		if _, ok := p.(*ast.GoStmt); ok {
			return true
		}
	}
	return false
}

// roles of a variable's identifier: used as a value, written (assigned,
// incremented, assigned by a range, itself or an element of it), or
// something a copy of the variable would not keep (its address taken,
// sliced, a field or a method selected, a composite literal's key that may
// be a field's name).
const (
	roleValue = iota
	roleWrite
	roleOther
)

func (f *formPass) role(id *ast.Ident) int {
	if f.res.ambiguous[id] {
		return roleOther
	}
	var cur ast.Node = id
	for {
		switch x := f.parent[cur].(type) {
		case *ast.ParenExpr, *ast.StarExpr:
			cur = x
			continue
		case *ast.IndexExpr:
			if x.X == cur {
				cur = x
				continue
			}
		case *ast.SelectorExpr:
			if x.X == cur {
				return roleOther
			}
		case *ast.SliceExpr:
			if x.X == cur {
				return roleOther
			}
		}
		break
	}
	switch x := f.parent[cur].(type) {
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return roleOther
		}
	case *ast.AssignStmt:
		for _, l := range x.Lhs {
			if l == cur {
				return roleWrite
			}
		}
	case *ast.IncDecStmt:
		return roleWrite
	case *ast.RangeStmt:
		if x.Key == cur || x.Value == cur {
			return roleWrite
		}
	}
	return roleValue
}
