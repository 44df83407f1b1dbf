// Package doccode holds the docs' Go code to the API as it is: every Go
// block of the Markdown files (```go) and every Go code block of a doc
// comment is compiled, by go/types against the packages' export data,
// and no current doc, example or app may name a deprecated identifier.
// Its tests (docs_test.go, deprecated_test.go) check the whole module;
// the package itself only extracts, assembles and checks. Its tests also
// hold README.md to the repository (readme_test.go): its ways to use tsys
// from a checkout run, as written, in a module outside the repository,
// and its layout table has a row for every folder.
//
// # How a block is compiled
//
// A block is a fragment: declarations, then often the statements that
// use them, with variables it does not declare (c, the running task's
// *tsys.Ctx; ctx; rt). Each block is compiled as a package of its own
// (two blocks may declare the same name), of two files:
//
//   - the block: its paragraphs that are declarations at the package's
//     top level, the others, in order, as the statements of one function
//     with no result, behind //line comments so that an error names the
//     doc's file and line. A block that begins with a package clause is
//     a whole file. The packages it names (tsys., cli., fmt. ...) are
//     imported for it.
//   - the givens (testdata/givens.go): the names a fragment may use
//     without declaring them, one type each for every doc. A given that
//     the block declares itself is left out.
//
// Errors a fragment cannot help are not reported: a variable or an
// import it declares and does not use. Everything else is: a name the
// API lacks, a call of the wrong shape, a name no one declares.
//
// # What is left out, and how
//
// `...` stands for code left out in two places only: a body, "{ ... }"
// (it becomes a panic, so a function with a result still compiles), and
// a line of its own (a comment). Anything else a doc leaves out must be
// written: a statement that returns a value is shown in its whole
// function, a call with all its arguments.
//
// # Which blocks are Go
//
// In Markdown, the blocks fenced ```go. In a doc comment, every code
// block that parses as Go after the rule above, and every one that looks
// like Go (it has ":=", "func" or a call of a package's function) even
// if it does not parse, so that a broken example is not taken for a
// command line. The rest (command lines, wire formats, error texts) is
// not checked. A Markdown line indented as code that looks like Go fails
// TestMarkdownGoIsFenced: fence it, so that it is compiled.
//
// # Deprecated names
//
// A deprecated name is an exported name of tsys, cli or inline whose doc
// has a "Deprecated: " paragraph, read from their source. In code (the
// docs' Go blocks, the public packages' Examples, everything in apps/
// and examples/) a use is what go/types resolves to it, through any
// instantiation of a generic type. In prose (Markdown, and the docs go
// doc shows of the public packages, the apps and the examples) it is the
// spelling go doc uses: Forked.Ready, tsys.Reduce, and a top-level name
// alone as code (`Reduce`, or mid-sentence in a doc comment) unless a
// live name shares it (Join, which is Forked's method). Allowed: the table
// of deprecated names in docs/API.md, the docs of deprecated names
// themselves, the public packages' own tests, and the records of what
// was: CHANGELOG.md, bench/README.md and bench/results/.
package doccode
