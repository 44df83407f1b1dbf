package doccode

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Root returns the directory of the module that holds dir.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", os.ErrNotExist
		}
		dir = up
	}
}

// Walk calls fn for every file of the module at root whose name ends in
// ext, by its path from root, leaving out what no doc or package is:
// hidden directories, testdata and other modules.
func Walk(root, ext string, fn func(rel string) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if strings.HasSuffix(p, ext) {
			return fn(filepath.ToSlash(rel))
		}
		return nil
	})
}

// ParsedFile is a Go file of the module, parsed with its comments.
type ParsedFile struct {
	Rel  string // path from the module's root
	Fset *token.FileSet
	File *ast.File
	Src  string
}

// GoFiles parses the module's Go files that are not tests.
func GoFiles(root string) ([]ParsedFile, error) {
	var files []ParsedFile
	err := Walk(root, ".go", func(rel string) error {
		if strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, ParsedFile{rel, fset, f, string(src)})
		return nil
	})
	return files, err
}

// Blocks returns the code blocks of the module's docs: the ```go blocks
// of its Markdown files and the code blocks of its Go files' doc
// comments.
func Blocks(root string, files []ParsedFile) ([]Block, error) {
	var blocks []Block
	err := Walk(root, ".md", func(rel string) error {
		md, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		blocks = append(blocks, MarkdownBlocks(rel, string(md))...)
		return nil
	})
	for _, f := range files {
		lineOf := func(n ast.Node) int { return f.Fset.Position(n.Pos()).Line }
		blocks = append(blocks, CommentBlocks(f.Rel, lineOf, f.File)...)
	}
	return blocks, err
}

// ImportPaths returns the paths a set of fragments and the givens import,
// the packages whose export data a check needs.
func (k *Checker) ImportPaths(blocks []Block) []string {
	seen := map[string]bool{}
	var paths []string
	add := func(src string) {
		f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly)
		if err != nil {
			return
		}
		for _, s := range f.Imports {
			if p, err := strconv.Unquote(s.Path.Value); err == nil && !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
	}
	add(k.Givens.source("doc", nil))
	for _, b := range blocks {
		if f, isGo, err := MakeFragment(b, k.Packages); isGo && err == nil {
			add(f.Source)
		}
	}
	return paths
}
