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
