package clonegen

import (
	"go/ast"
	"go/token"
)

// Scopes: which identifier of a function names which of its locals.
//
// The closure forms' rewrite moves code between scopes (a closure's body
// into the function, a variable the closures capture into a copy of its
// own), so it must know what every identifier of the function refers to.
// go/types would say, but only of a package that compiles, and a package
// that calls fooClone does not before go generate has written it. The
// syntax is enough for locals: Go's scopes are lexical. What it cannot
// tell apart, a struct literal's field name from a map literal's key
// variable, is marked ambiguous, and the rewrite treats it as both.

// objKind is what a local declaration declares.
type objKind int

const (
	varObj objKind = iota
	constObj
	typeObj
)

// object is a local of the function: a parameter, a variable, a constant
// or a type declared inside it.
type object struct {
	name string
	kind objKind
	decl *ast.Ident
	// ctx: a parameter of type *tsys.Ctx, of the function or of a closure.
	ctx bool
}

// resolution is what the identifiers of one function refer to.
type resolution struct {
	// uses maps an identifier that refers to a local to it; identifiers
	// of the package's or the universe's names are not in it.
	uses map[*ast.Ident]*object
	// decls maps a declaring identifier to what it declares; a name
	// redeclared by := is a use.
	decls map[*ast.Ident]*object
	// ambiguous holds the composite literal keys that may be a field's
	// name or a variable (in uses too when a local of that name is in
	// scope).
	ambiguous map[*ast.Ident]bool
}

// resolve resolves the identifiers of fn, whose file calls package tsys
// tsysName.
func resolve(fn *ast.FuncDecl, tsysName string) *resolution {
	r := &resolver{res: &resolution{uses: map[*ast.Ident]*object{}, decls: map[*ast.Ident]*object{}, ambiguous: map[*ast.Ident]bool{}}, tsys: tsysName}
	r.push()
	if fn.Type.TypeParams != nil {
		for _, f := range fn.Type.TypeParams.List {
			for _, id := range f.Names {
				r.declare(id, typeObj, false)
			}
		}
		for _, f := range fn.Type.TypeParams.List {
			r.expr(f.Type)
		}
	}
	r.signature(fn.Type)
	if fn.Body != nil {
		r.stmts(fn.Body.List)
	}
	return r.res
}

type resolver struct {
	res    *resolution
	tsys   string
	scopes []map[string]*object
}

func (r *resolver) push() { r.scopes = append(r.scopes, map[string]*object{}) }
func (r *resolver) pop()  { r.scopes = r.scopes[:len(r.scopes)-1] }

func (r *resolver) declare(id *ast.Ident, kind objKind, ctx bool) {
	if id == nil || id.Name == "_" {
		return
	}
	o := &object{name: id.Name, kind: kind, decl: id, ctx: ctx}
	r.scopes[len(r.scopes)-1][id.Name] = o
	r.res.decls[id] = o
}

func (r *resolver) lookup(name string) *object {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if o := r.scopes[i][name]; o != nil {
			return o
		}
	}
	return nil
}

func (r *resolver) use(id *ast.Ident) {
	if o := r.lookup(id.Name); o != nil {
		r.res.uses[id] = o
	}
}

// signature declares a function's parameters and results in the current
// scope, which is also its body's.
func (r *resolver) signature(ft *ast.FuncType) {
	for _, list := range []*ast.FieldList{ft.Params, ft.Results} {
		if list == nil {
			continue
		}
		for _, f := range list.List {
			r.expr(f.Type)
			ctx := isCtxType(f.Type, r.tsys)
			for _, id := range f.Names {
				r.declare(id, varObj, ctx)
			}
		}
	}
}

// isCtxType reports whether t is *tsys.Ctx.
func isCtxType(t ast.Expr, tsysName string) bool {
	star, ok := t.(*ast.StarExpr)
	return ok && isSelectorOf(star.X, tsysName, "Ctx")
}

func (r *resolver) exprs(list []ast.Expr) {
	for _, e := range list {
		r.expr(e)
	}
}

func (r *resolver) expr(e ast.Expr) {
	switch x := e.(type) {
	case nil:
	case *ast.Ident:
		r.use(x)
	case *ast.FuncLit:
		r.push()
		r.signature(x.Type)
		r.stmts(x.Body.List)
		r.pop()
	case *ast.CompositeLit:
		r.expr(x.Type)
		for _, el := range x.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				r.expr(el)
				continue
			}
			if id, ok := kv.Key.(*ast.Ident); ok && !keysAreValues(x.Type) {
				r.res.ambiguous[id] = true
			}
			r.expr(kv.Key)
			r.expr(kv.Value)
		}
	case *ast.SelectorExpr:
		r.expr(x.X)
	case *ast.StructType:
		r.fields(x.Fields)
	case *ast.InterfaceType:
		r.fields(x.Methods)
	case *ast.FuncType:
		r.fields(x.TypeParams)
		r.fields(x.Params)
		r.fields(x.Results)
	default:
		// Every other expression's operands are expressions: resolve
		// its direct children.
		ast.Inspect(e, func(n ast.Node) bool {
			if n == e {
				return true
			}
			if c, ok := n.(ast.Expr); ok {
				r.expr(c)
			}
			return false
		})
	}
}

// keysAreValues reports whether the keys of a composite literal of type t
// are values: a map's keys or an array's indices, never field names.
func keysAreValues(t ast.Expr) bool {
	switch t.(type) {
	case *ast.MapType, *ast.ArrayType:
		return true
	}
	return false
}

// fields resolves the types of a field list, whose names are no locals.
func (r *resolver) fields(list *ast.FieldList) {
	if list == nil {
		return
	}
	for _, f := range list.List {
		r.expr(f.Type)
	}
}

func (r *resolver) stmts(list []ast.Stmt) {
	for _, s := range list {
		r.stmt(s)
	}
}

func (r *resolver) stmt(s ast.Stmt) {
	switch x := s.(type) {
	case nil:
	case *ast.DeclStmt:
		gd, ok := x.Decl.(*ast.GenDecl)
		if !ok {
			return
		}
		for _, spec := range gd.Specs {
			switch sp := spec.(type) {
			case *ast.ValueSpec:
				r.expr(sp.Type)
				r.exprs(sp.Values)
				kind := varObj
				if gd.Tok == token.CONST {
					kind = constObj
				}
				for _, id := range sp.Names {
					r.declare(id, kind, kind == varObj && isCtxType(sp.Type, r.tsys))
				}
			case *ast.TypeSpec:
				r.declare(sp.Name, typeObj, false)
				r.expr(sp.Type)
			}
		}
	case *ast.AssignStmt:
		r.exprs(x.Rhs)
		if x.Tok != token.DEFINE {
			r.exprs(x.Lhs)
			return
		}
		for _, l := range x.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok {
				r.expr(l)
				continue
			}
			if _, redeclared := r.scopes[len(r.scopes)-1][id.Name]; redeclared {
				r.use(id)
			} else {
				r.declare(id, varObj, false)
			}
		}
	case *ast.ExprStmt:
		r.expr(x.X)
	case *ast.SendStmt:
		r.expr(x.Chan)
		r.expr(x.Value)
	case *ast.IncDecStmt:
		r.expr(x.X)
	case *ast.GoStmt:
		r.expr(x.Call)
	case *ast.DeferStmt:
		r.expr(x.Call)
	case *ast.ReturnStmt:
		r.exprs(x.Results)
	case *ast.LabeledStmt:
		r.stmt(x.Stmt)
	case *ast.BlockStmt:
		r.push()
		r.stmts(x.List)
		r.pop()
	case *ast.IfStmt:
		r.push()
		r.stmt(x.Init)
		r.expr(x.Cond)
		r.stmt(x.Body)
		r.stmt(x.Else)
		r.pop()
	case *ast.ForStmt:
		r.push()
		r.stmt(x.Init)
		r.expr(x.Cond)
		r.stmt(x.Post)
		r.stmt(x.Body)
		r.pop()
	case *ast.RangeStmt:
		r.expr(x.X)
		r.push()
		if x.Tok == token.DEFINE {
			for _, e := range []ast.Expr{x.Key, x.Value} {
				if id, ok := e.(*ast.Ident); ok {
					r.declare(id, varObj, false)
				}
			}
		} else {
			r.expr(x.Key)
			r.expr(x.Value)
		}
		r.stmt(x.Body)
		r.pop()
	case *ast.SwitchStmt:
		r.push()
		r.stmt(x.Init)
		r.expr(x.Tag)
		for _, cc := range x.Body.List {
			cc := cc.(*ast.CaseClause)
			r.exprs(cc.List)
			r.push()
			r.stmts(cc.Body)
			r.pop()
		}
		r.pop()
	case *ast.TypeSwitchStmt:
		r.push()
		r.stmt(x.Init)
		var bound *ast.Ident
		switch a := x.Assign.(type) {
		case *ast.AssignStmt:
			r.exprs(a.Rhs)
			bound, _ = a.Lhs[0].(*ast.Ident)
		case *ast.ExprStmt:
			r.expr(a.X)
		}
		for _, cc := range x.Body.List {
			cc := cc.(*ast.CaseClause)
			r.exprs(cc.List)
			r.push()
			if bound != nil {
				// One variable per clause, each declared by the same
				// identifier: the first is kept as its declaration.
				o := &object{name: bound.Name, kind: varObj, decl: bound}
				r.scopes[len(r.scopes)-1][bound.Name] = o
				if r.res.decls[bound] == nil {
					r.res.decls[bound] = o
				}
			}
			r.stmts(cc.Body)
			r.pop()
		}
		r.pop()
	case *ast.SelectStmt:
		for _, cc := range x.Body.List {
			cc := cc.(*ast.CommClause)
			r.push()
			r.stmt(cc.Comm)
			r.stmts(cc.Body)
			r.pop()
		}
	}
}
