package doccode

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A Package is what go list says of one package: its files and imports.
type Package struct {
	Dir, ImportPath, Name              string
	GoFiles, TestGoFiles, XTestGoFiles []string
	Imports, TestImports, XTestImports []string
}

// List lists the packages the patterns match, in the module at root.
func List(root string, patterns ...string) ([]Package, error) {
	out, err := goList(root, []string{"-json"}, patterns...)
	if err != nil {
		return nil, err
	}
	var pkgs []Package
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p Package
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
}

// CheckFiles type-checks the named files of one package (paths from
// root) and returns the objects their identifiers use, positioned by
// their path from root, and the type errors, which there should be none
// of: the files compile.
func CheckFiles(imp types.Importer, root, path string, names []string) ([]Use, []string) {
	fset := token.NewFileSet()
	var files []*ast.File
	var errs []string
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, []string{err.Error()}
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, []string{err.Error()}
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
	conf.Check(path, fset, files, info)
	var uses []Use
	for id, obj := range info.Uses {
		uses = append(uses, Use{fset.Position(id.Pos()), obj})
	}
	return uses, errs
}
