package gosrc

import "go/ast"

// TypeName is the name of a receiver's or an embedded field's type,
// without its pointer or type parameters: T for T, *T, T[P] and T[P, Q],
// pkg.T for pkg.T; "" for an expression that names no type that way.
func TypeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return TypeName(e.X)
	case *ast.IndexExpr:
		return TypeName(e.X)
	case *ast.IndexListExpr:
		return TypeName(e.X)
	case *ast.SelectorExpr:
		if x := TypeName(e.X); x != "" {
			return x + "." + e.Sel.Name
		}
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// Receiver is the name of the type d is a method of (Loop for
// func (l *Loop[E, R]) Range), or "" for a function.
func Receiver(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	return TypeName(d.Recv.List[0].Type)
}
