package sched

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"testing"
)

// maxMethods is the most methods a type of this package may declare: what
// a reader can hold in their head at once. A type that outgrows it splits
// by concern, as Pool split by caller (doc.go, "The pool's sides") and
// Executor lost its frame tracking (track.go).
const maxMethods = 25

// TestTypesStaySmall: no type of the package declares more than
// maxMethods methods, and the pool's sides are types of their own.
func TestTypesStaySmall(t *testing.T) {
	counts := map[string]int{}
	declares := map[[2]string]bool{}
	for _, fd := range methodDecls(t) {
		typ := receiverType(fd)
		counts[typ]++
		declares[[2]string{typ, fd.Name.Name}] = true
	}
	// Without these the bound would hold by not finding them: a parse
	// that lost a file, or a side folded back into another type.
	for _, typ := range []string{"Pool", "Port", "View", "crew", "Executor", "frameTrack", "Ctx", "Worker", "Deque"} {
		if counts[typ] == 0 {
			t.Errorf("type %s declares no method", typ)
		}
	}
	for typ, n := range counts {
		if n > maxMethods {
			t.Errorf("type %s declares %d methods, more than %d: split it by concern", typ, n, maxMethods)
		}
	}
	// The cluster's calls and the readers' are not the owner's.
	for _, m := range []string{"Lend", "Inject", "Complete", "Fail", "Load", "SetExpose", "Live", "StreamData"} {
		if declares[[2]string{"Pool", m}] {
			t.Errorf("Pool declares %s, a method of another side (Port or View)", m)
		}
	}
	t.Logf("methods: Pool %d, Port %d, View %d, crew %d, Executor %d, frameTrack %d, Ctx %d",
		counts["Pool"], counts["Port"], counts["View"], counts["crew"], counts["Executor"], counts["frameTrack"], counts["Ctx"])
}

// methodDecls parses the package's non-test files and returns its
// method declarations.
func methodDecls(t *testing.T) []*ast.FuncDecl {
	t.Helper()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.GoFiles) == 0 {
		t.Fatal("no Go file in the package")
	}
	var out []*ast.FuncDecl
	fset := token.NewFileSet()
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
				out = append(out, fd)
			}
		}
	}
	return out
}

// receiverType is the name of the type fd is a method of.
func receiverType(fd *ast.FuncDecl) string {
	e := fd.Recv.List[0].Type
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr: // a generic type's method
		return e.X.(*ast.Ident).Name
	case *ast.IndexListExpr:
		return e.X.(*ast.Ident).Name
	}
	return ""
}
