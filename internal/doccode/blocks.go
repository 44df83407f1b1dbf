package doccode

import (
	"go/ast"
	"strings"

	"github.com/tsys-go/tsys/internal/gosrc"
)

// Block is a code block of a doc: a Markdown file's ```go block or a code
// block of a doc comment.
type Block struct {
	File string // the doc's path, as errors name it
	Line int    // the line of the block's first line in File
	Text string // the code, without the doc's indentation
	// Markdown is true for a ```go block, which is Go whatever it holds;
	// a comment's block is Go when it parses or looks like Go.
	Markdown bool
	// Decl names the declaration whose doc comment holds the block
	// (Recv.Name, or "package"), "" for Markdown.
	Decl string
	// Deprecated is true when that declaration is deprecated: its doc
	// shows the old way on purpose.
	Deprecated bool
}

// MarkdownBlocks returns the ```go blocks of the Markdown text md, read
// from file.
func MarkdownBlocks(file, md string) []Block {
	var blocks []Block
	var cur []string
	start, in := 0, false
	for i, l := range strings.Split(md, "\n") {
		switch t := strings.TrimSpace(l); {
		case !in && t == "```go":
			in, cur, start = true, nil, i+2
		case in && t == "```":
			in = false
			blocks = append(blocks, Block{File: file, Line: start, Text: strings.Join(cur, "\n"), Markdown: true})
		case in:
			cur = append(cur, l)
		}
	}
	return blocks
}

// CommentBlocks returns the code blocks of the doc comments of f (what go
// doc shows: the package's, and those of declarations, specs, fields and
// interface methods), read from file, with line positions from fset's
// view of f. A code block of a doc comment is a run of "//\t" lines, the
// form gofmt gives it, with the empty comment lines inside it.
func CommentBlocks(file string, lineOf func(pos ast.Node) int, f *ast.File) []Block {
	var blocks []Block
	add := func(doc *ast.CommentGroup, decl string, deprecated bool) {
		if doc == nil {
			return
		}
		var cur []string
		start := 0
		flush := func() {
			for len(cur) > 0 && cur[len(cur)-1] == "" {
				cur = cur[:len(cur)-1]
			}
			if len(cur) > 0 {
				blocks = append(blocks, Block{File: file, Line: start, Text: strings.Join(cur, "\n"), Decl: decl, Deprecated: deprecated})
			}
			cur = nil
		}
		for _, c := range doc.List {
			switch {
			case strings.HasPrefix(c.Text, "//\t"):
				if cur == nil {
					start = lineOf(c)
				}
				cur = append(cur, strings.TrimPrefix(c.Text, "//\t"))
			case c.Text == "//" && cur != nil:
				cur = append(cur, "")
			default:
				flush()
			}
		}
		flush()
	}
	for _, d := range Docs(f) {
		add(d.Doc, d.Name, d.Deprecated)
	}
	return blocks
}

// A Doc is one doc comment of a file and what it documents.
type Doc struct {
	Doc        *ast.CommentGroup
	Name       string // "package", Name, or Recv.Name for a method or a field
	Deprecated bool   // its text, or that of the type it belongs to, has a Deprecated paragraph
}

// Docs returns the doc comments of f that go doc shows, and the line
// comments of fields and values, which it shows too.
func Docs(f *ast.File) []Doc {
	var docs []Doc
	add := func(cg *ast.CommentGroup, name string, inherited bool) {
		if cg != nil {
			docs = append(docs, Doc{cg, name, inherited || gosrc.Deprecated(cg.Text())})
		}
	}
	add(f.Doc, "package", false)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if r := gosrc.Receiver(d); r != "" {
				name = r + "." + name
			}
			add(d.Doc, name, false)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					doc := s.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					add(doc, s.Name.Name, false)
					dep := doc != nil && gosrc.Deprecated(doc.Text())
					var fields *ast.FieldList
					switch t := s.Type.(type) {
					case *ast.StructType:
						fields = t.Fields
					case *ast.InterfaceType:
						fields = t.Methods
					}
					if fields != nil {
						for _, fl := range fields.List {
							for _, cg := range []*ast.CommentGroup{fl.Doc, fl.Comment} {
								for _, n := range fl.Names {
									add(cg, s.Name.Name+"."+n.Name, dep)
								}
								if len(fl.Names) == 0 {
									add(cg, s.Name.Name, dep)
								}
							}
						}
					}
				case *ast.ValueSpec:
					doc := s.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					add(doc, s.Names[0].Name, false)
					add(s.Comment, s.Names[0].Name, false)
				}
			}
			if len(d.Specs) != 1 {
				add(d.Doc, "", false)
			}
		}
	}
	return docs
}

// UnfencedGo returns the lines (from 1) of a Markdown text that look like
// Go in an indented code block: Go that no ```go fence marks for the
// check.
func UnfencedGo(md string) []int {
	var lines []int
	in := false
	for i, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in && (strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")) && looksGo.MatchString(l) {
			lines = append(lines, i+1)
		}
	}
	return lines
}
