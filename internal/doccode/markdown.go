package doccode

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"regexp"
	"strings"
)

// GoBlocks returns the ```go code blocks of a Markdown text.
func GoBlocks(md string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, l := range strings.Split(md, "\n") {
		switch {
		case !in && strings.TrimSpace(l) == "```go":
			in, cur = true, nil
		case in && strings.TrimSpace(l) == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, l)
		}
	}
	return blocks
}

// placeholder is a body a README leaves out, "{ ... }", which parses once
// it is a call of panic: a terminating statement, whatever the result.
var placeholder = regexp.MustCompile(`\{\s*\.\.\.\s*\}`)

// APIErrors type-checks a Markdown block of Go against the packages that
// imp imports, and returns the errors that show the block using them
// wrongly: a name they lack, a call with the wrong arguments. A README's
// block is a fragment (declarations, then the statements that use them,
// with variables it never declares), so each paragraph is taken as
// declarations or, failing that, as a function's statements, and the
// errors a fragment cannot help (an undeclared local, an unused one) are
// left out. It also returns how many paragraphs it checked.
func APIErrors(block string, imp types.Importer, pkgs map[string]string) (errs []string, checked int) {
	block = placeholder.ReplaceAllString(block, `{ panic("") }`)
	var decls, funcs []string
	for _, p := range strings.Split(block, "\n\n") {
		switch {
		case strings.HasPrefix(strings.TrimSpace(p), "import "):
		case parsesAsFile(p):
			decls = append(decls, p)
		case parses(p):
			funcs = append(funcs, fmt.Sprintf("func _%d() {\n%s\n}", len(funcs), p))
		default:
			continue
		}
		checked++
	}
	var src strings.Builder
	src.WriteString("package readme\n\n")
	for name, path := range pkgs {
		if strings.Contains(block, name+".") {
			fmt.Fprintf(&src, "import %q\n", path)
		}
	}
	src.WriteString(strings.Join(append(decls, funcs...), "\n\n"))
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "README.go", src.String(), 0)
	if err != nil {
		return []string{err.Error()}, checked
	}
	conf := types.Config{Importer: imp, Error: func(err error) {
		if msg := err.Error(); !fragmentError(msg) {
			errs = append(errs, msg)
		}
	}}
	conf.Check("readme", fset, []*ast.File{f}, nil)
	return errs, checked
}

func parsesAsFile(code string) bool {
	_, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+code, 0)
	return err == nil
}

// fragmentError says whether a type error comes of the block being a
// fragment: a variable or type it uses but never declares, or one it
// declares and does not use.
var fragmentErrors = regexp.MustCompile(`undefined: [A-Za-z_]\w*$|declared and not used|imported and not used|"[^"]+" imported as \w+ and not used`)

func fragmentError(msg string) bool { return fragmentErrors.MatchString(msg) }

// GcImporter imports packages from the export data go list -export gives
// (path to file), so a check needs no source of the packages' dependencies.
func GcImporter(fset *token.FileSet, exports map[string]string) types.Importer {
	return importer.ForCompiler(fset, "gc", func(path string) (rc io.ReadCloser, err error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
}
