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

// Declares lists the names a top-level declaration declares in its
// package's scope: a function's (not a method's), each type's, constant's
// and variable's. An import's name is its file's, and not among them.
func Declares(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}
