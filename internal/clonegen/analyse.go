package clonegen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// analyse finds, in body, the locals that hold Forked or Future values,
// the calls to rewrite, and what cannot be cloned safely (c.errs).
func (c *cloner) analyse(body *ast.BlockStmt) {
	c.tracked = map[string]bool{}
	c.rename = map[*ast.CallExpr]string{}
	c.value = map[*ast.CallExpr]ast.Expr{}
	c.ready = map[*ast.CallExpr]bool{}
	c.parent = map[ast.Node]ast.Node{}
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if len(stack) > 0 {
			c.parent[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		return true
	})
	if !c.task {
		// A plain clone keeps its forks: only its calls become clones'.
		ast.Inspect(body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && c.p.cloneOf[id.Name] != "" {
					c.rename[call] = c.p.cloneOf[id.Name]
				}
			}
			return true
		})
		return
	}
	// What holds a Forked spreads through assignments: to a fixed point.
	for grew := true; grew; {
		grew = false
		track := func(e ast.Expr) {
			if id, ok := e.(*ast.Ident); ok && id.Name != "_" && !c.tracked[id.Name] {
				c.tracked[id.Name] = true
				grew = true
			}
		}
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if (n.Type != nil && c.holdsFuture(n.Type)) || (i < len(n.Values) && c.forkish(n.Values[i])) {
						track(id)
					}
				}
			case *ast.AssignStmt:
				// Only a declaration makes a local: x = fork, where x is no
				// local holding Forked values, is an escape (checkUse).
				if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
					for i, r := range n.Rhs {
						if c.forkish(r) {
							track(n.Lhs[i])
						}
					}
				}
			case *ast.RangeStmt:
				if n.Tok == token.DEFINE && c.forkish(n.X) && n.Value != nil {
					track(n.Value)
				}
			}
			return true
		})
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			c.call(n)
		case *ast.Ident:
			if c.tracked[n.Name] && !c.isField(n) {
				c.checkUse(n, n.Name+", which holds a Forked or Future,")
			}
		case *ast.SelectorExpr:
			if call, ok := c.parent[n].(*ast.CallExpr); (!ok || call.Fun != n) && (n.Sel.Name == "Fork" || n.Sel.Name == "Spawn") && c.p.tasks[exprString(n.X)] {
				c.fail(n.Pos(), "%s is a method value, a fork the clone cannot see being called: call it where it forks, or register %s instead of %s to run it without a clone", exprString(n), c.name, c.p.cloneOf[c.name])
			}
		}
		return true
	})
}

// call notes what becomes of call in the clone.
func (c *cloner) call(call *ast.CallExpr) {
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		if clone, ok := c.p.cloneOf[fun.Name]; ok {
			c.rename[call] = clone
		}
	case *ast.SelectorExpr:
		switch method := fun.Sel.Name; {
		case (method == "Fork" || method == "Spawn") && len(call.Args) == 2:
			task := exprString(fun.X)
			clone, ok := c.p.taskClone[task]
			if !ok {
				c.fail(call.Pos(), "%s.%s forks a task with no clone in this package: register its function by its clone's name (tsys.Register(name, fooClone)), or register %s instead of %s to run it without a clone", task, method, c.name, c.p.cloneOf[c.name])
				return
			}
			c.checkUse(call, "this "+method)
			c.rename[call] = clone
		case method == "Call" && len(call.Args) == 2:
			if clone, ok := c.p.taskClone[exprString(fun.X)]; ok {
				c.rename[call] = clone
			}
		case (method == "Join" || method == "Get") && len(call.Args) == 1 && c.forkish(fun.X):
			c.value[call] = fun.X
		case method == "Ready" && len(call.Args) == 0 && c.forkish(fun.X):
			c.ready[call] = true
		case method == "Value" && len(call.Args) == 1 && isSelectorOf(fun, c.tsys, "Value"):
			c.value[call] = call.Args[0]
			c.checkUse(call, "this tsys.Value")
		}
	}
}

// forkish reports whether e is a Forked or Future, or an array or slice of
// them, as far as the syntax shows.
func (c *cloner) forkish(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return c.forkish(x.X)
	case *ast.Ident:
		return c.tracked[x.Name]
	case *ast.IndexExpr:
		return c.forkish(x.X)
	case *ast.SliceExpr:
		return c.forkish(x.X)
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "append" && len(x.Args) > 0 {
			return c.forkish(x.Args[0])
		}
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
			if (sel.Sel.Name == "Fork" || sel.Sel.Name == "Spawn") && len(x.Args) == 2 {
				return true
			}
			return isSelectorOf(sel, c.tsys, "Value") && len(x.Args) == 1
		}
	}
	return false
}

// holdsFuture reports whether the type expression t mentions tsys.Forked
// or tsys.Future.
func (c *cloner) holdsFuture(t ast.Expr) bool {
	found := false
	ast.Inspect(t, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && c.futureType(e) != nil {
			found = true
		}
		return !found
	})
	return found
}

// futureType returns R when e is tsys.Forked[R] or tsys.Future[R].
func (c *cloner) futureType(e ast.Expr) ast.Expr {
	ix, ok := e.(*ast.IndexExpr)
	if ok && (isSelectorOf(ix.X, c.tsys, "Forked") || isSelectorOf(ix.X, c.tsys, "Future")) {
		return ix.Index
	}
	return nil
}

// isField reports whether id names a field or a method (x.id, or id: in a
// composite literal) rather than a local.
func (c *cloner) isField(id *ast.Ident) bool {
	switch p := c.parent[id].(type) {
	case *ast.SelectorExpr:
		return p.Sel == id
	case *ast.KeyValueExpr:
		_, inLit := c.parent[p].(*ast.CompositeLit)
		return inLit && p.Key == id
	}
	return false
}

// checkUse fails unless n (a local holding Forked values, or a fork) is
// used where the clone can turn it into a value, within this call.
func (c *cloner) checkUse(n ast.Node, what string) {
	for p := c.parent[n]; p != nil; p = c.parent[p] {
		switch p.(type) {
		case *ast.FuncLit:
			c.fail(n.Pos(), "%s is inside a closure, which may run after %s returns or on another goroutine: fork and join in %s itself, or register %s instead of %s to run it without a clone", what, c.name, c.name, c.name, c.p.cloneOf[c.name])
			return
		case *ast.GoStmt, *ast.DeferStmt:
			c.fail(n.Pos(), "%s is in a go or defer statement: fork and join in %s's own flow, or register %s instead of %s to run it without a clone", what, c.name, c.name, c.p.cloneOf[c.name])
			return
		}
	}
	cur := n
	p := c.parent[cur]
	for {
		switch x := p.(type) {
		case *ast.ParenExpr:
		case *ast.IndexExpr:
			if x.X != cur {
				goto judge
			}
		case *ast.SliceExpr:
			if x.X != cur {
				goto judge
			}
		default:
			goto judge
		}
		cur, p = p, c.parent[p]
	}
judge:
	if c.allowed(cur, p) {
		return
	}
	c.fail(n.Pos(), "%s escapes here (%s): the clone can make a Forked or Future a value only where %s itself joins, indexes, slices, appends or takes its len; join it in %s, or register %s instead of %s to run it without a clone", what, describe(p), c.name, c.name, c.name, c.p.cloneOf[c.name])
}

// allowed reports whether cur, a Forked or something holding them, is in a
// place p where the clone's value works as well.
func (c *cloner) allowed(cur ast.Node, p ast.Node) bool {
	switch x := p.(type) {
	case *ast.SelectorExpr:
		call, ok := c.parent[x].(*ast.CallExpr)
		return ok && call.Fun == x && (x.Sel.Name == "Join" || x.Sel.Name == "Get" || x.Sel.Name == "Ready")
	case *ast.CallExpr:
		id, ok := x.Fun.(*ast.Ident)
		if !ok || x.Fun == cur {
			return false
		}
		switch id.Name {
		case "len", "cap":
			return true
		case "append":
			return c.allowed(x, c.parent[x])
		}
		return false
	case *ast.AssignStmt:
		if len(x.Lhs) != len(x.Rhs) {
			return false
		}
		for i := range x.Lhs {
			if x.Lhs[i] == cur {
				return c.forkish(x.Rhs[i])
			}
			if x.Rhs[i] == cur {
				id, blank := x.Lhs[i].(*ast.Ident)
				return c.forkish(x.Lhs[i]) || (blank && id.Name == "_")
			}
		}
	case *ast.ValueSpec:
		// var x T = v: the clone changes T, so v must change with it.
		for i, id := range x.Names {
			if id == cur {
				return i >= len(x.Values) || c.forkish(x.Values[i])
			}
		}
		return true
	case *ast.RangeStmt, *ast.ExprStmt:
		return true
	}
	return false
}

// describe names a place a Forked escapes through, for a message.
func describe(n ast.Node) string {
	switch n.(type) {
	case *ast.ReturnStmt:
		return "returned"
	case *ast.CallExpr:
		return "passed to a call"
	case *ast.CompositeLit, *ast.KeyValueExpr:
		return "stored in a composite literal"
	case *ast.BinaryExpr:
		return "an operand"
	case *ast.SendStmt:
		return "sent on a channel"
	case *ast.UnaryExpr:
		return "its address taken"
	case *ast.AssignStmt:
		return "assigned to something that is not a local holding Forked values"
	case *ast.SelectorExpr:
		return "a method other than Join, Get or Ready"
	case *ast.ValueSpec:
		return "declared with a value that comes from no fork"
	}
	return fmt.Sprintf("in a %T", n)
}

func (c *cloner) fail(pos token.Pos, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s: %s: %s", c.line(pos), c.name, fmt.Sprintf(format, args...)))
}

// guards counts the leading statements of list that may run before the
// clone asks whether to inline: ifs that return, with no call in their
// condition (the natural function evaluates it again after a no) and no
// fork in their body.
func (c *cloner) guards(list []ast.Stmt) int {
	for i, s := range list {
		is, ok := s.(*ast.IfStmt)
		if !ok || is.Init != nil || is.Else != nil || len(is.Body.List) == 0 {
			return i
		}
		if _, ok := is.Body.List[len(is.Body.List)-1].(*ast.ReturnStmt); !ok {
			return i
		}
		pure := true
		ast.Inspect(is.Cond, func(n ast.Node) bool {
			if _, ok := n.(*ast.CallExpr); ok {
				pure = false
			}
			return pure
		})
		ast.Inspect(is.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if c.rename[n] != "" || c.value[n] != nil || c.ready[n] {
					pure = false
				}
			case *ast.Ident:
				if c.tracked[n.Name] {
					pure = false
				}
			}
			return pure
		})
		if !pure {
			return i
		}
	}
	return len(list)
}

// replace is the rewrite of one expression, its own operands already
// rewritten.
func (c *cloner) replace(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.CallExpr:
		if name := c.rename[x]; name != "" {
			x.Fun = ast.NewIdent(name)
			return x
		}
		if c.ready[x] {
			return ast.NewIdent("true")
		}
		if v := c.value[x]; v != nil {
			// The receiver or argument as rewritten, which the call holds.
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name != "Value" {
				return sel.X
			}
			return x.Args[0]
		}
	case *ast.IndexExpr:
		if r := c.futureType(x); r != nil {
			return r
		}
	}
	return e
}

// exprString is the source of a task expression, as a key of taskClone.
func exprString(e ast.Expr) string { return types.ExprString(e) }
