package doccode

import (
	"go/token"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The packages a README block may use, by the name it uses them by.
var readmePackages = map[string]string{
	"tsys":    "github.com/tsys-go/tsys/tsys",
	"cli":     "github.com/tsys-go/tsys/cli",
	"inline":  "github.com/tsys-go/tsys/inline",
	"flag":    "flag",
	"math":    "math",
	"context": "context",
	"fmt":     "fmt",
	"errors":  "errors",
	"time":    "time",
}

// exports builds the packages (go list -export, from the build cache
// after the first time) and returns where each one's export data is.
func exports(t *testing.T) map[string]string {
	t.Helper()
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}
	for _, p := range readmePackages {
		args = append(args, p)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(l, "="); ok && file != "" {
			m[path] = file
		}
	}
	return m
}

// README.md's Go blocks use the API as it is: every name exists and
// every call has the right arguments, though the blocks are fragments.
func TestREADMEGoBlocksUseTheAPI(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	imp := GcImporter(token.NewFileSet(), exports(t))
	blocks := GoBlocks(string(md))
	paragraphs := 0
	for i, b := range blocks {
		errs, n := APIErrors(b, imp, readmePackages)
		paragraphs += n
		for _, e := range errs {
			t.Errorf("README.md's Go block %d (of %d) does not match the API: %s", i+1, len(blocks), e)
		}
	}
	t.Logf("checked %d paragraphs of %d Go blocks", paragraphs, len(blocks))
	// Fewer would mean the blocks went unread, not that they are right.
	if len(blocks) < 4 || paragraphs < 8 {
		t.Fatalf("checked %d paragraphs of %d Go blocks; README.md has more", paragraphs, len(blocks))
	}
}

// A block that uses a name the API lacks, or calls with the wrong
// arguments, is caught; one that only leaves its variables undeclared is
// not.
func TestAPIErrorsCatchesAStaleBlock(t *testing.T) {
	imp := GcImporter(token.NewFileSet(), exports(t))
	for block, want := range map[string]string{
		"rt := tsys.New(tsys.Workers(4))\nv, _, err := tsys.Run(ctx, rt, Fib, 35)": "",
		"var Fib = tsys.Register(\"f\", func(c *tsys.Ctx, n int) int { ... })":     "",
		"rt := tsys.New(tsys.Threads(4))":                                          "Threads",
		"var L = tsys.RegisterRange(\"l\", func(c *tsys.Ctx, _ struct{}, lo, hi int) int { ... }, func(a, b int) int { ... })\n\nv := L.Run(c, struct{}{}, 0, n, 1<<14)": "cannot use",
		"var F = tsys.Register(\"f\", func(c *tsys.Ctx, n int) int { ... })\n\nF.Fork(c)":                                                                                "not enough arguments",
	} {
		errs, checked := APIErrors(block, imp, readmePackages)
		if checked == 0 {
			t.Errorf("%q: no paragraph checked", block)
		}
		got := strings.Join(errs, "; ")
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%q: errors %q, want %q", block, got, want)
		}
	}
}
