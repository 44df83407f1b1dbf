package clonegen

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generateLine is what a package that go generate clones holds.
const generateLine = "//go:generate go run github.com/tsys-go/tsys/cmd/tsysclone"

// TestGeneratedFilesAreCurrent regenerates the clone of every package of
// the module that asks go generate for one, and fails when the file checked
// in differs: CI then says which command to run.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(src), "\n") {
			if strings.TrimSpace(line) == generateLine {
				dirs[filepath.Dir(path)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"apps/fib", "apps/nqueens", "apps/uts", "examples/treesum", "internal/clonegen/clonetest"} {
		if !dirs[filepath.Join(root, want)] {
			t.Errorf("%s has no %q line", want, generateLine)
		}
	}
	for dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		want, _, err := Generate(dir)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, FileName))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s/%s is not what tsysclone writes (%v): run go generate ./%s", rel, FileName, err, rel)
		}
	}
}

// pkgWith writes a package of one file whose body follows the tsys import
// and returns its directory.
func pkgWith(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	src := "package p\n\nimport \"github.com/tsys-go/tsys/tsys\"\n\n" + body
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// task is the registration the refusal cases share: F, of f.
const task = `var F *tsys.Task[int, int]

func init() { F = tsys.Register("f", fClone) }

var sink any

func use(any) {}
`

// TestRefusals: what the clone cannot prove stays within the call is
// refused with a message that names the line, says why, and what to do.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"a discarded fork, and a function that is no task", `func f(c *tsys.Ctx, n int) int {
	a := F.Fork(c, n)
	_ = a
	return n
}
func g(c *tsys.Ctx) tsys.Forked[int] {
	return F.Fork(c, 1)
}`, ""}, // g is no task of the package's: left alone
		{"escapes into a call", `func f(c *tsys.Ctx, n int) int {
	a := F.Fork(c, n-1)
	use(a)
	return a.Join(c)
}`, "p.go:15: f: a, which holds a Forked or Future, escapes here (passed to a call)"},
		{"stored in a global", `func f(c *tsys.Ctx, n int) int {
	a := F.Spawn(c, n-1)
	sink = a
	return a.Get(c)
}`, "escapes here (assigned to something that is not a local holding Forked values)"},
		{"fork in a closure", `func f(c *tsys.Ctx, n int) int {
	g := func() int { return F.Fork(c, n-1).Join(c) }
	return g()
}`, "p.go:14: f: this Fork is inside a closure"},
		{"future captured", `func f(c *tsys.Ctx, n int) int {
	a := F.Spawn(c, n-1)
	g := func() int { return a.Get(c) }
	return g()
}`, "a, which holds a Forked or Future, is inside a closure"},
		{"go statement", `func f(c *tsys.Ctx, n int) int {
	go use(F.Fork(c, n))
	return 0
}`, "is in a go or defer statement"},
		{"defer statement", `func f(c *tsys.Ctx, n int) int {
	defer use(F.Fork(c, n))
	return 0
}`, "is in a go or defer statement"},
		{"unknown task", `var G *tsys.Task[int, int]

func init() { G = tsys.Register("g", g) }

func g(c *tsys.Ctx, n int) int { return n }

func f(c *tsys.Ctx, n int) int {
	return G.Fork(c, n).Join(c)
}`, "G.Fork forks a task with no clone in this package"},
		{"compared", `func f(c *tsys.Ctx, n int) int {
	a, b := F.Fork(c, n), F.Fork(c, n)
	if a == b {
		return 0
	}
	return a.Join(c) + b.Join(c)
}`, "escapes here (an operand)"},
		{"method value", `func f(c *tsys.Ctx, n int) int {
	fork := F.Fork
	return fork(c, n).Join(c)
}`, "F.Fork is a method value"},
		{"a future from elsewhere", `func f(c *tsys.Ctx, n int) int {
	var a tsys.Future[int] = tsys.Future[int]{}
	return a.Get(c)
}`, "a, which holds a Forked or Future, escapes here (declared with a value that comes from no fork)"},
		{"not a task function", `func f(n int) int { return n }`, "f cannot be cloned: it does not take two parameters; a task function is func(c *tsys.Ctx, a A) R"},
		{"no ctx", `func f(c int, n int) int { return n }`, "its first parameter is not a *tsys.Ctx"},
		{"blank parameter", `func f(c *tsys.Ctx, _ int) int { return 0 }`, "a parameter is named _"},
		{"generic", `func f[T any](c *tsys.Ctx, n int) int { return n }`, "it is generic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Generate(pkgWith(t, task+"\n"+tc.body+"\n"))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("cloned; want an error with %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q; want it to hold %q", err, tc.want)
			}
			if tc.want != "" && !strings.Contains(err.Error(), "register f instead of fClone") && !strings.Contains(err.Error(), "a task function is") {
				t.Errorf("error %q does not say what to do", err)
			}
		})
	}
}

// TestBadPackages: registrations that cannot be cloned at all.
func TestBadPackages(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"no registration", "func f(c *tsys.Ctx, n int) int { return n }\n", "no clone to write: register a task by its clone's name, tsys.Register(name, fooClone), or call fooClone"},
		{"no natural function", "var F = tsys.Register(\"f\", hClone)\n", "tsys.Register names hClone, but the package declares no function h to clone"},
		{"taken name", task + "func f(c *tsys.Ctx, n int) int { return n }\nfunc fNatural() {}\n", "fNatural is a name the clone of f takes: rename it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Generate(pkgWith(t, tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want it to hold %q", err, tc.want)
			}
		})
	}
}
