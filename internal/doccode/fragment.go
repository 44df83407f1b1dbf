package doccode

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strings"

	"github.com/tsys-go/tsys/internal/gosrc"
)

// A Fragment is a block made into a file of Go: the block's code behind
// //line comments, so that positions are the doc's.
type Fragment struct {
	Block
	Source   string          // the file
	Package  string          // its package's name: doc, or the block's own
	Declares map[string]bool // the names the block declares at the top level
	Imports  map[string]bool // the package names its file imports
}

// body is "{ ... }", a body a doc leaves out, and dots a line of its own
// that does.
var (
	body = regexp.MustCompile(`\{\s*\.\.\.\s*\}`)
	dots = regexp.MustCompile(`^\s*\.\.\.\s*$`)
)

// looksGo is what marks a block as Go even when it does not parse: an
// assignment by :=, a function, or a call of a package's function.
var looksGo = regexp.MustCompile(`:=|\bfunc\b|\b[a-z]\w*\.[A-Z]\w*\(`)

// leftOut applies the rule for code a doc leaves out to the lines of a
// block, keeping their number.
func leftOut(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if dots.MatchString(l) {
			lines[i] = "// ..."
			continue
		}
		lines[i] = body.ReplaceAllString(l, `{ panic("left out of the doc") }`)
	}
	return lines
}

// A chunk is a run of a block's lines that parses on its own, as
// declarations or as statements.
type chunk struct {
	first int // index of its first line in the block
	text  string
	decls bool
	file  *ast.File // parsed, for a chunk of declarations
}

// MakeFragment makes the block into a file of package doc, importing
// the packages of pkgs (name to path) whose name the block uses. It
// reports whether the block is Go (see the package doc) and, for a block
// that is Go but does not parse, the error, positioned in the doc.
func MakeFragment(b Block, pkgs map[string]string) (f Fragment, isGo bool, err error) {
	f = Fragment{Block: b, Package: "doc", Declares: map[string]bool{}, Imports: map[string]bool{}}
	lines := leftOut(b.Text)
	// The column of a block's first character in its file: a comment's
	// code follows "//\t".
	col := 1
	if !b.Markdown {
		col = len("//\t") + 1
	}
	at := func(i int) string { return fmt.Sprintf("//line %s:%d:%d\n", b.File, b.Line+i, col) }

	if strings.HasPrefix(strings.TrimSpace(lines[0]), "package ") {
		file, err := parser.ParseFile(token.NewFileSet(), "", at(0)+strings.Join(lines, "\n"), parser.SkipObjectResolution)
		if err != nil {
			return f, true, err
		}
		f.Package = file.Name.Name
		for _, d := range file.Decls {
			declared(d, f.Declares)
		}
		f.Source = at(0) + lines[0] + "\n" + f.autoImports(pkgs) + at(1) + strings.Join(lines[1:], "\n") + "\n"
		return f, true, nil
	}

	chunks, perr := split(lines)
	if perr != nil {
		if !b.Markdown && !looksGo.MatchString(b.Text) {
			return f, false, nil
		}
		// Parse what is left as statements, behind its line, for an error
		// that names the doc's line.
		src := "package doc\nfunc _() {\n" + at(perr.first) + strings.Join(lines[perr.first:], "\n") + "\n}\n"
		_, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
		if err == nil {
			err = fmt.Errorf("%s:%d: does not parse as Go declarations or statements", b.File, b.Line+perr.first)
		}
		return f, true, fmt.Errorf("%w (a doc leaves code out only as a body, { ... }, or as a line of its own, ...)", err)
	}

	var imports, decls, stmts strings.Builder
	for _, c := range chunks {
		switch {
		case c.decls && len(c.file.Imports) > 0:
			imports.WriteString(at(c.first) + c.text + "\n")
			for _, spec := range c.file.Imports {
				f.Imports[importName(spec)] = true
			}
			for _, d := range c.file.Decls {
				declared(d, f.Declares)
			}
		case c.decls:
			decls.WriteString(at(c.first) + c.text + "\n")
			for _, d := range c.file.Decls {
				declared(d, f.Declares)
			}
		default:
			stmts.WriteString(at(c.first) + c.text + "\n")
		}
	}
	var src strings.Builder
	src.WriteString("package doc\n\n")
	src.WriteString(f.autoImports(pkgs))
	src.WriteString(imports.String())
	src.WriteString(decls.String())
	if stmts.Len() > 0 {
		src.WriteString("\nfunc _() {\n" + stmts.String() + "}\n")
	}
	f.Source = src.String()
	return f, true, nil
}

// autoImports returns the imports the doc leaves to the reader: every
// package of pkgs whose name the block uses as a qualifier, unless it
// imports or declares the name itself.
func (f *Fragment) autoImports(pkgs map[string]string) string {
	var names []string
	for name := range pkgs {
		names = append(names, name)
	}
	slices.Sort(names)
	var src strings.Builder
	for _, name := range names {
		if !f.Imports[name] && !f.Declares[name] && regexp.MustCompile(`\b`+name+`\.`).MatchString(f.Text) {
			fmt.Fprintf(&src, "import %q\n", pkgs[name])
			f.Imports[name] = true
		}
	}
	return src.String()
}

// split cuts a block's lines into chunks, each the fewest paragraphs
// (runs of lines between empty ones) from where the last ended that
// parse, as declarations or else as statements: a declaration of a
// function may hold an empty line. It returns the chunk from which no
// run of paragraphs parses, if any.
func split(lines []string) ([]chunk, *chunk) {
	var paras [][2]int // [first, end) line indices
	for i := 0; i < len(lines); {
		for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
			i++
		}
		j := i
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" {
			j++
		}
		if j > i {
			paras = append(paras, [2]int{i, j})
		}
		i = j
	}
	var chunks []chunk
	for p := 0; p < len(paras); {
		found := false
		for q := p; q < len(paras); q++ {
			text := strings.Join(lines[paras[p][0]:paras[q][1]], "\n")
			if file := parseDecls(text); file != nil {
				chunks = append(chunks, chunk{first: paras[p][0], text: text, decls: true, file: file})
			} else if parsesStmts(text) {
				chunks = append(chunks, chunk{first: paras[p][0], text: text})
			} else {
				continue
			}
			p, found = q+1, true
			break
		}
		if !found {
			return nil, &chunk{first: paras[p][0]}
		}
	}
	return chunks, nil
}

func parseDecls(code string) *ast.File {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+code, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	return f
}

func parsesStmts(code string) bool {
	_, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+code+"\n}", parser.SkipObjectResolution)
	return err == nil
}

// declared adds the names a top-level declaration declares to names:
// the package's, and an import's, which the file's code names as well.
func declared(d ast.Decl, names map[string]bool) {
	for _, name := range gosrc.Declares(d) {
		names[name] = true
	}
	if d, ok := d.(*ast.GenDecl); ok {
		for _, s := range d.Specs {
			if s, ok := s.(*ast.ImportSpec); ok {
				names[importName(s)] = true
			}
		}
	}
}

// importName is the name an import declares: its own, or the last
// element of the path (the module's packages are named so).
func importName(s *ast.ImportSpec) string {
	if s.Name != nil {
		return s.Name.Name
	}
	path := strings.Trim(s.Path.Value, `"`)
	return path[strings.LastIndex(path, "/")+1:]
}
