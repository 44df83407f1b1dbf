// Package doccode holds the Go code shown in a doc comment to the
// package's Example functions: every line of a code block that parses as
// Go must be a line of an example file, so a doc cannot show an API that
// no longer compiles.
package doccode

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Stale returns the lines of Go code in the comments of the file doc that
// no file matching the glob examples holds (each line compared without
// its indentation). A code block that is not Go (a shell command line)
// is not checked.
func Stale(doc, examples string) ([]string, error) {
	src, err := os.ReadFile(doc)
	if err != nil {
		return nil, err
	}
	have, err := exampleLines(examples)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, block := range codeBlocks(string(src)) {
		if !isGo(block) {
			continue
		}
		for _, l := range strings.Split(block, "\n") {
			if l = strings.TrimSpace(l); l != "" && !have[l] {
				stale = append(stale, l)
			}
		}
	}
	return stale, nil
}

func exampleLines(glob string) (map[string]bool, error) {
	files, err := filepath.Glob(glob)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no example file matches %s", glob)
	}
	have := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(b), "\n") {
			have[strings.TrimSpace(l)] = true
		}
	}
	return have, nil
}

// codeBlocks returns the code blocks of a file's comments: runs of
// "//\t" lines, which gofmt's doc comment format makes code, with the
// empty comment lines between them.
func codeBlocks(src string) []string {
	var blocks []string
	var cur []string
	flush := func() {
		for len(cur) > 0 && cur[len(cur)-1] == "" {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, "\n"))
		}
		cur = nil
	}
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "//\t"):
			cur = append(cur, strings.TrimPrefix(l, "//\t"))
		case l == "//" && len(cur) > 0:
			cur = append(cur, "")
		default:
			flush()
		}
	}
	flush()
	return blocks
}

// isGo says whether a block parses as Go declarations or statements, as a
// whole or paragraph by paragraph: a doc's example often declares a task
// and then shows the statements that run it, which no one file holds.
func isGo(block string) bool {
	if parses(block) {
		return true
	}
	for _, p := range strings.Split(block, "\n\n") {
		if !parses(p) {
			return false
		}
	}
	return true
}

func parses(code string) bool {
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "", "package p\n"+code, 0); err == nil {
		return true
	}
	_, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+code+"\n}", 0)
	return err == nil
}

// CheckPackageDoc fails t for every line of Go code in the package doc
// (doc.go, in the test's directory) that no example file of the package
// holds: the test each public package runs, so that its doc cannot show
// an API that has gone.
func CheckPackageDoc(t testing.TB) {
	t.Helper()
	stale, err := Stale("doc.go", "example*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range stale {
		t.Errorf("doc.go shows a line no example holds (change the doc to show an example's code): %s", l)
	}
}
