package doccode

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const doc = `// Package p does things:
//
//	var T = p.Register("t", f)
//
//	func f(c *p.Ctx, n int) int {
//		return p.Old(c, n, 1<<14)
//	}
//
// and its command line:
//
//	prog run t -n 5 | prog version
package p
`

const example = `package p_test

var T = p.Register("t", f)

func f(c *p.Ctx, n int) int {
	return p.New(c, n)
}
`

func TestStaleNamesTheLineNoExampleHolds(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "doc.go"), doc)
	write(t, filepath.Join(dir, "example_test.go"), example)
	stale, err := Stale(filepath.Join(dir, "doc.go"), filepath.Join(dir, "example*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	// The command line is no Go, so it is not held to the examples.
	if want := []string{"return p.Old(c, n, 1<<14)"}; !slices.Equal(stale, want) {
		t.Fatalf("stale %q, want %q", stale, want)
	}

	write(t, filepath.Join(dir, "example_test.go"), example+"\nfunc g(c *p.Ctx, n int) int {\n\treturn p.Old(c, n, 1<<14)\n}\n")
	if stale, err := Stale(filepath.Join(dir, "doc.go"), filepath.Join(dir, "example*_test.go")); err != nil || len(stale) != 0 {
		t.Fatalf("stale %q, %v; want none", stale, err)
	}
}

func TestStaleWantsExamples(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "doc.go"), doc)
	if _, err := Stale(filepath.Join(dir, "doc.go"), filepath.Join(dir, "example*_test.go")); err == nil {
		t.Fatal("no error without an example file")
	}
}

func TestIsGo(t *testing.T) {
	for block, want := range map[string]bool{
		"rt := tsys.New(tsys.Workers(4))":                   true,
		"func init() { Fib = tsys.Register(\"fib\", fib) }": true,
		"prog run sum -n 1000000 [--workers W]":             false,
		"prog drain ADDR | prog jobs ADDR":                  false,
	} {
		if got := isGo(block); got != want {
			t.Errorf("isGo(%q) = %v, want %v", block, got, want)
		}
	}
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
