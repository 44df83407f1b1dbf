package jobid

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestOneSpelling: an ID reads the same in a message and in a log line,
// where a uint64 would read in decimal.
func TestOneSpelling(t *testing.T) {
	id := ID(0xc0ffee)
	var b bytes.Buffer
	slog.New(slog.NewTextHandler(&b, nil)).Info("x", "job", id)
	if id.String() != "c0ffee" || !strings.Contains(b.String(), " job=c0ffee") {
		t.Errorf("String %q, log line %q: want c0ffee in both", id.String(), b.String())
	}
}

// The packages whose lines and messages name jobs by their ids (package
// cli shows the ids of their snapshots, strings already spelled).
var namers = []string{"../cluster", "../share", "../monitor"}

// formatVerb matches a verb of a fmt format; "job %" starts one that
// formats a job's id.
var formatVerb = regexp.MustCompile(`%[-+# 0-9.*\[\]]*[a-zA-Z%]`)

// TestEveryJobIDIsAnID: wherever the code that names jobs puts a job's
// id in a log line ("job", X) or a message ("job %s", X), X is an ID, so
// that no line spells one in decimal beside another in hex (as one
// once did).
func TestEveryJobIDIsAnID(t *testing.T) {
	checked := 0
	for _, dir := range namers {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				for i, arg := range call.Args {
					s, ok := stringLit(arg)
					if !ok {
						continue
					}
					var x ast.Expr
					switch {
					case s == "job" && i+1 < len(call.Args):
						x = call.Args[i+1]
					case strings.Contains(s, "job %"):
						x = jobArg(s, call.Args[i+1:])
					default:
						continue
					}
					checked++
					if !isID(x) {
						t.Errorf("%s: a job's id is given as %s: give jobid.ID(...), which spells it as every other line does", fset.Position(arg.Pos()), src[x.Pos()-1:x.End()-1])
					}
				}
				return true
			})
		}
	}
	if checked < 5 {
		t.Errorf("only %d places name a job's id: has the check lost them?", checked)
	}
}

// stringLit is the value of a string literal.
func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// jobArg is the argument that format's "job %" verb formats.
func jobArg(format string, args []ast.Expr) ast.Expr {
	at := strings.Index(format, "job %") + len("job ")
	n := 0
	for _, loc := range formatVerb.FindAllStringIndex(format[:at], -1) {
		if format[loc[1]-1] != '%' {
			n++
		}
	}
	if n >= len(args) {
		return &ast.BadExpr{}
	}
	return args[n]
}

// isID reports whether e is a conversion to jobid.ID.
func isID(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "jobid" && sel.Sel.Name == "ID"
}
