package doccode

import (
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"strings"
)

// Exports builds the packages named and their dependencies, in the module
// at dir, with one go list (from the build cache after the first time),
// and returns where each one's export data is.
func Exports(dir string, pkgs []string) (map[string]string, error) {
	out, err := goList(dir, []string{"-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, pkgs...)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(l, "="); ok && file != "" {
			m[path] = file
		}
	}
	return m, nil
}

// Importer imports packages from the export data that Exports found, so
// that a check needs no source of the packages it uses.
func Importer(fset *token.FileSet, exports map[string]string) types.Importer {
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s (add it to the packages the check lists)", path)
		}
		return os.Open(f)
	})
}
