// Package gosrc holds the readings of Go source that several of the
// project's tools make, so that they make them one way: the name of the
// type a method is declared on or a field embeds (TypeName, Receiver),
// the names a top-level declaration gives its package (Declares), and
// whether a doc comment deprecates what it documents (Deprecated). The
// API checker (internal/apicheck), the docs' code checker
// (internal/doccode), the clone generator (internal/clonegen) and the
// type-size tests (internal/methodcount) read with it.
package gosrc
