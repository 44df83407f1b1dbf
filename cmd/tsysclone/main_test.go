package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/clonegen"
)

// TestCheckFailsOnStaleFile: -check accepts what tsysclone writes and
// refuses a file that differs, or none, saying to run go generate.
func TestCheckFailsOnStaleFile(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import "github.com/tsys-go/tsys/tsys"

var F *tsys.Task[int, int]

func init() { F = tsys.Register("f", fClone) }

func f(c *tsys.Ctx, n int) int {
	if n < 2 {
		return n
	}
	return F.Fork(c, n-1).Join(c) + f(c, n-2)
}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, true, io.Discard); err == nil || !strings.Contains(err.Error(), "run go generate") {
		t.Errorf("-check with no clone written: %v; want an error saying to run go generate", err)
	}
	if err := run(dir, false, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, true, io.Discard); err != nil {
		t.Errorf("-check right after writing: %v", err)
	}
	path := filepath.Join(dir, clonegen.FileName)
	out, _ := os.ReadFile(path)
	if !strings.Contains(string(out), "return fClone(c, n-1) + fClone(c, n-2)") {
		t.Errorf("the clone is not plain calls:\n%s", out)
	}
	if err := os.WriteFile(path, append(out, "// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, true, io.Discard); err == nil || !strings.Contains(err.Error(), "is stale: run go generate") {
		t.Errorf("-check on an edited clone: %v; want it stale", err)
	}
}

// TestVerboseNamesEachForm: -v's notes name the line of each closure form,
// rewritten or left as written, and why.
func TestVerboseNamesEachForm(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import "github.com/tsys-go/tsys/tsys"

func Run(c *tsys.Ctx, n int) int { return sumClone(c, n) }

func sum(c *tsys.Ctx, n int) int {
	if n < 2 {
		return n
	}
	a, b := tsys.Pair(c, func(c *tsys.Ctx) int { return sum(c, n-1) }, func(c *tsys.Ctx) int { return sum(c, n-2) })
	f := func(c *tsys.Ctx) {}
	tsys.Both(c, f, f)
	return a + b
}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var notes strings.Builder
	if err := run(dir, false, &notes); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"p.go:11: sum: tsys.Pair rewritten: its closures are made only when the policy says no",
		"p.go:13: sum: tsys.Both left as written: f is not a func literal",
	} {
		if !strings.Contains(notes.String(), want) {
			t.Errorf("-v says\n%s\nwant a line with %q", notes.String(), want)
		}
	}
}
