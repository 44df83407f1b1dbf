package main

import (
	"go/build"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPublicPackagesExist: every package the check compares is a package
// of the working tree, named as its path ends: a path that no longer
// exists would read as "removed" at every release, and check nothing.
// The list is the one CHANGELOG.md's header gives, in its order.
func TestPublicPackagesExist(t *testing.T) {
	const root = "../.."
	module, err := modulePath(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range publicPackages {
		rel, ok := strings.CutPrefix(p, module+"/")
		if !ok {
			t.Errorf("%s is not a package of module %s", p, module)
			continue
		}
		pkg, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(rel)), 0)
		if err != nil {
			t.Errorf("%s, which publicPackages lists, is not a package of the tree: %v; remove it from internal/apicheck/packages.go and CHANGELOG.md's header", p, err)
			continue
		}
		if pkg.Name != path.Base(p) {
			t.Errorf("%s is package %s: want the name its path ends with", p, pkg.Name)
		}
	}
	header := readFile(t, filepath.Join(root, "CHANGELOG.md"))
	header, _, _ = strings.Cut(header, "## ")
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^- `([^`]+)`").FindAllStringSubmatch(header, -1) {
		listed = append(listed, m[1])
	}
	if !slices.Equal(listed, publicPackages) {
		t.Errorf("CHANGELOG.md's header lists %q, the check compares %q: make them one list", listed, publicPackages)
	}
}
