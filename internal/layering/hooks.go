package layering

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"strconv"
)

// InitHooks lists what the init functions of file, a file of package pkg
// (relative to Module), do to another package of the module: assign to
// one of its variables, or call one of its functions. Either is a hook
// set at init, a way up the layers that the imports do not show (package
// tsys setting a func(any) of a package below it that cli then called):
// the layer above imports what it needs instead, and what two layers
// share moves below both.
func InitHooks(fset *token.FileSet, pkg string, file *ast.File) []string {
	mine := map[string]string{} // local name -> path, of the module's packages file imports
	for _, im := range file.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil || Rel(p) == p {
			continue
		}
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		mine[name] = Rel(p)
	}
	other := func(e ast.Expr) (string, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || mine[x.Name] == "" {
			return "", false
		}
		return mine[x.Name] + "." + sel.Sel.Name, true
	}
	var out []string
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != "init" || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if name, ok := other(l); ok {
						out = append(out, fmt.Sprintf("%s (%s): init sets %s", pkg, fset.Position(n.Pos()), name))
					}
				}
			case *ast.CallExpr:
				if name, ok := other(n.Fun); ok {
					out = append(out, fmt.Sprintf("%s (%s): init calls %s", pkg, fset.Position(n.Pos()), name))
				}
			}
			return true
		})
	}
	return out
}
