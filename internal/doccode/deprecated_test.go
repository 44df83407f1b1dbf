package doccode

import (
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// exempt says whether a Markdown file may name deprecated names: it is
// history, not a current doc. CHANGELOG.md records each change by the
// names of its day; bench/README.md and the results under bench/ record
// what was measured, by the names of its day.
func exempt(file string) bool {
	return file == "CHANGELOG.md" || file == "bench/README.md" || strings.HasPrefix(file, "bench/results/")
}

// deprecatedTable is the one place of a current doc that names the
// deprecated names, to say what replaces each: a section of docs/API.md.
const deprecatedTable, deprecatedSection = "docs/API.md", "## Deprecated, kept one release"

// No current doc, example or app uses a deprecated name of the public
// packages: not README.md or docs/ (bar the table of deprecated names),
// not a doc comment that is not itself deprecated, not the Go blocks of
// either, not an Example, not the code of apps/ and examples/.
func TestNoDeprecatedNames(t *testing.T) {
	m := module(t)
	live, deprecated := m.publicNames(t)
	// None is a state of the module, right after a release that removed
	// them; TestNamesFindsTheDeprecated and
	// TestProseFindsTheSpellingGoDocUses show, on names made for them, that
	// the check finds what it looks for, and the counts at the end that it
	// read the module.
	t.Logf("%d deprecated names: %v", len(deprecated), deprecated)

	// In code, what the type checker resolves.
	objects := map[types.Object]Name{}
	for _, n := range deprecated {
		pkg, err := m.checker.Importer.Import(n.Pkg)
		if err != nil {
			t.Fatal(err)
		}
		obj := n.Object(pkg)
		if obj == nil {
			t.Fatalf("%s: no such object in the package's export data", n)
		}
		objects[obj] = n
	}
	report := func(uses []Use, what string) {
		for _, u := range uses {
			if n, ok := objects[Origin(u.Object)]; ok {
				t.Errorf("%s: %s uses %s, which is deprecated: use what its doc says replaces it", u.Pos, what, n)
			}
		}
	}
	for _, r := range m.results {
		if !r.Deprecated {
			report(r.Uses, "the doc's code")
		}
	}
	codeFiles := 0
	for _, p := range m.code {
		rel, err := filepath.Rel(m.root, p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		join := func(names []string, keep func(string) bool) []string {
			var out []string
			for _, n := range names {
				if keep(n) {
					out = append(out, path.Join(filepath.ToSlash(rel), n))
				}
			}
			return out
		}
		all := func(string) bool { return true }
		var sets [][]string
		if slices.Contains(publicPackages, rel) {
			// Only the Examples: the package's own tests test the
			// deprecated names, as they must while the names stay.
			sets = append(sets, join(p.XTestGoFiles, func(n string) bool { return strings.HasPrefix(n, "example") }))
		} else {
			sets = append(sets, join(append(slices.Clone(p.GoFiles), p.TestGoFiles...), all), join(p.XTestGoFiles, all))
		}
		for _, files := range sets {
			if len(files) == 0 {
				continue
			}
			codeFiles += len(files)
			uses, errs := CheckFiles(m.checker.Importer, m.root, p.ImportPath, files)
			for _, e := range errs {
				t.Errorf("cannot read %s's code for deprecated names: %s", p.ImportPath, e)
			}
			report(uses, "code")
		}
	}

	// In prose, the spelling go doc uses.
	prose := NewProse(deprecated, live)
	mdFiles := 0
	err := Walk(m.root, ".md", func(rel string) error {
		if exempt(rel) {
			return nil
		}
		mdFiles++
		md, err := os.ReadFile(filepath.Join(m.root, rel))
		if err != nil {
			return err
		}
		inTable, inFence := false, false
		for i, l := range strings.Split(string(md), "\n") {
			if strings.HasPrefix(l, "```") {
				inFence = !inFence // a Go block's code is the type checker's
			}
			if strings.HasPrefix(l, "## ") {
				inTable = rel == deprecatedTable && l == deprecatedSection
			}
			if inTable || inFence {
				continue
			}
			for _, n := range prose.Markdown(l) {
				t.Errorf("%s:%d: names %s, which is deprecated: name what replaces it (only %s's %q may name it)", rel, i+1, n, deprecatedTable, deprecatedSection)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	comments := 0
	for _, f := range m.files {
		if !proseChecked(f.Rel) {
			continue
		}
		for _, d := range Docs(f.File) {
			if d.Deprecated || !shown(d.Name) {
				continue
			}
			comments++
			recv, _, _ := strings.Cut(d.Name, ".")
			for _, h := range prose.Comment(commentText(d.Doc), recv) {
				line := f.Fset.Position(d.Doc.Pos()).Line + strings.Count(commentText(d.Doc)[:h.Offset], "\n")
				t.Errorf("%s:%d: the doc of %s names %s, which is deprecated: name what replaces it", f.Rel, line, d.Name, h.Name)
			}
		}
	}
	t.Logf("read %d files of code, %d Markdown files and %d doc comments", codeFiles, mdFiles, comments)
	if codeFiles < 20 || mdFiles < 5 || comments < 100 {
		t.Fatalf("read %d files of code, %d Markdown files and %d doc comments: fewer than the module has", codeFiles, mdFiles, comments)
	}
}

// proseChecked says whether the doc comments of a file are held to live
// names: those of the public packages, the apps and the examples.
func proseChecked(rel string) bool {
	for _, dir := range append(slices.Clone(publicPackages), "apps", "examples") {
		if strings.HasPrefix(rel, dir+"/") {
			return true
		}
	}
	return false
}

// shown says whether go doc shows the doc of name (Name, Recv.Name or
// package): an exported name's, or the package's.
func shown(name string) bool {
	for _, part := range strings.Split(name, ".") {
		if part != "package" && !ast.IsExported(part) {
			return false
		}
	}
	return name != ""
}

// commentText is a comment group's text, a line per comment line, so
// that an offset in it gives the line: the comment markers and the one
// space after them removed, a code block's tab kept.
func commentText(cg *ast.CommentGroup) string {
	var lines []string
	for _, c := range cg.List {
		l := strings.TrimPrefix(c.Text, "//")
		l = strings.TrimPrefix(l, " ")
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// publicNames reads the public packages' exported names from their
// source, live and deprecated.
func (m *moduleDocs) publicNames(t *testing.T) (live, deprecated []Name) {
	t.Helper()
	for _, dir := range publicPackages {
		var files []*ast.File
		name := ""
		for _, f := range m.files {
			if path.Dir(f.Rel) == dir {
				files = append(files, f.File)
				name = f.File.Name.Name
			}
		}
		if len(files) == 0 {
			t.Fatalf("no Go file in %s", dir)
		}
		l, d := Names(fmt.Sprintf("github.com/tsys-go/tsys/%s", dir), name, files)
		live, deprecated = append(live, l...), append(deprecated, d...)
	}
	return live, deprecated
}
