package doccode

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// check compiles one block with the module's checker and returns its
// errors, joined.
func check(t *testing.T, b Block) (Result, string) {
	t.Helper()
	r := module(t).checker.Check(b)
	return r, strings.Join(r.Errors, "; ")
}

// A block that uses the API wrongly fails, naming the doc's file and the
// line of the mistake; one that uses it rightly passes.
func TestCheckNamesTheDocsLine(t *testing.T) {
	for _, c := range []struct {
		name string
		b    Block
		want string // "" for none
	}{
		{"right", Block{File: "X.md", Line: 10, Markdown: true,
			Text: "rt := tsys.New(tsys.Workers(4))\nv, _, err := tsys.Run(ctx, rt, Fib, 35)"}, ""},
		{"an argument too many", Block{File: "X.md", Line: 10, Markdown: true,
			Text: "rt := tsys.New(tsys.Workers(4))\nv, _, err := tsys.Run(ctx, rt, Fib, 35, 1)"}, "X.md:11:"},
		{"a name the API lacks", Block{File: "X.md", Line: 3, Markdown: true,
			Text: "rt := tsys.New(tsys.Threads(4))"}, "X.md:3:"},
		// AddProgress's example before issue 46: a For body of the wrong shape.
		{"a body of the wrong shape", Block{File: "tsys/progress.go", Line: 11,
			Text: "tsys.For(c, 0, len(rows), func(c *tsys.Ctx, i int) {\n\tcheck(rows[i])\n\tc.AddProgress(1, int64(len(rows)))\n})"},
			"tsys/progress.go:11:"},
		// A statement that returns a value is shown in its function.
		{"a return outside its function", Block{File: "f.go", Line: 5,
			Text: "if c.AllowCCall() {\n\treturn fib(c, n-1) + fib(c, n-2)\n}"}, "f.go:6:"},
		// Declarations, then the statements that use them, an empty
		// line inside a function.
		{"declarations and statements", Block{File: "X.md", Line: 1, Markdown: true,
			Text: "var Sq = tsys.Register(\"sq\", func(c *tsys.Ctx, n int) int {\n\tm := n * n\n\n\treturn m\n})\n\nv, _, err := tsys.Run(ctx, rt, Sq, 3)"}, ""},
		{"a name no one declares", Block{File: "X.md", Line: 1, Markdown: true,
			Text: "tsys.For(c, 0, len(ys), func(_ *tsys.Ctx, lo, hi int) {})"}, "X.md:1:20: undefined: ys (declare it in the block, or give it in internal/doccode/testdata/givens.go)"},
		{"a block's own declaration over a given", Block{File: "X.md", Line: 1, Markdown: true,
			Text: "var n = \"five\"\n\nfmt.Println(strings.ToUpper(n))"}, ""},
		{"a whole file", Block{File: "x.go", Line: 1,
			Text: "package greedy\n\ntype Params struct{ Batch int }\n\nfunc New(p Params) *Params { ... }\n\nvar _ = New(Params{Batch: \"9\"})"}, "x.go:7:"},
	} {
		if _, got := check(t, c.b); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: errors %q, want %q", c.name, got, c.want)
		}
	}
}

// Code left out: a body, { ... }, and a line of its own, ..., compile;
// "..." anywhere else is an error that says the rule.
func TestLeftOut(t *testing.T) {
	ok := Block{File: "X.md", Line: 1, Markdown: true,
		Text: "var Sq = tsys.Register(\"sq\", func(c *tsys.Ctx, n int) int { ... })\n\nv, _, err := tsys.Run(ctx, rt, Sq, 3)\n...\nfmt.Println(v, err)"}
	if _, got := check(t, ok); got != "" {
		t.Errorf("errors %q, want none", got)
	}
	// Both's example before issue 46.
	bad := Block{File: "tsys/local.go", Line: 36,
		Text: "if c.AllowCCall() {\n\treturn sum(c, n.L) + sum(c, n.R)\n}\nreturn tsys.Pair(c, func(c *tsys.Ctx) int64 { return sum(c, n.L) }, ...)"}
	r, got := check(t, bad)
	if !r.Go || !strings.Contains(got, "tsys/local.go:39:") || !strings.Contains(got, "{ ... }") {
		t.Errorf("Go %v, errors %q: want the rule for ..., at tsys/local.go:39", r.Go, got)
	}
}

// A comment's block that neither parses nor looks like Go is a command
// line or a format, and is left alone; one that looks like Go is held to
// parse.
func TestWhichCommentBlocksAreGo(t *testing.T) {
	for text, want := range map[string]bool{
		"TSYS_CHECK_COPIES=1 go test ./...":                                      false,
		"mysum run sum -n 1000000 [--workers W] [--json] ...":                    false,
		"offset  size  field\n0       4     magic \"TSYS\"":                      false,
		"join 127.0.0.1:1: no seed reachable (connection refused); check --join": false,
		"rt := tsys.New(tsys.Workers(4))":                                        true,
		"x := tsys.Pair(c, f, ...)":                                              true,
		"tsys.For(c, 0, n, body(":                                                true,
	} {
		r, _ := check(t, Block{File: "x.go", Line: 1, Text: text})
		if r.Go != want {
			t.Errorf("%q: Go %v, want %v", text, r.Go, want)
		}
	}
}

// Blocks are found where they are, with the line of their first line.
func TestBlocksAndTheirLines(t *testing.T) {
	md := "# T\n\n```go\nx := 1\n```\n\n```sh\nls\n```\n\n```go\ny := 2\n\nz := 3\n```\n"
	got := MarkdownBlocks("T.md", md)
	if len(got) != 2 || got[0].Line != 4 || got[0].Text != "x := 1" || got[1].Line != 12 || got[1].Text != "y := 2\n\nz := 3" {
		t.Fatalf("MarkdownBlocks = %+v", got)
	}

	if got := UnfencedGo("# T\n\n    go test ./...\n\n    rt := tsys.New()\n\n```go\n    x := f()\n```\n"); !slices.Equal(got, []int{5}) {
		t.Errorf("UnfencedGo = %v, want [5]", got)
	}

	src := "// Package p.\n//\n//\tp.A()\npackage p\n\n// A does.\n//\n//\ta := 1\n//\n//\tb := a\n//\n// Deprecated: use B.\nfunc A() {}\n\ntype T struct {\n\t// F is.\n\t//\n\t//\tf()\n\tF int\n}\n\nfunc (T) M() {}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	blocks := CommentBlocks("p.go", func(n ast.Node) int { return fset.Position(n.Pos()).Line }, f)
	var lines []int
	for _, b := range blocks {
		lines = append(lines, b.Line)
	}
	if !slices.Equal(lines, []int{3, 8, 18}) || blocks[1].Text != "a := 1\n\nb := a" || !blocks[1].Deprecated || blocks[1].Decl != "A" || blocks[2].Decl != "T.F" {
		t.Fatalf("CommentBlocks = %+v", blocks)
	}
}
