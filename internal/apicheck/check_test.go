package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A module of one public package p, its first release committed.
const releasedP = `package p

// A is kept.
func A() {}

// B goes after its release of warning.
//
// Deprecated: use A.
func B() {}

// C goes without one.
func C() {}
`

// What a contributor then writes: D added, B and C removed.
const changedP = `package p

// A is kept.
func A() {}

// D is new.
func D() {}
`

// fixture is a git repository of module example.com/m whose CHANGELOG.md
// names the commit of its release.
type fixture struct {
	t    *testing.T
	dir  string
	head string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git:", err)
	}
	f := &fixture{t: t, dir: t.TempDir()}
	f.write("go.mod", "module example.com/m\n\ngo 1.22\n")
	f.write("p/p.go", releasedP)
	f.git("init", "-q")
	f.git("add", ".")
	f.git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "release")
	f.head = strings.TrimSpace(f.git("rev-parse", "--short", "HEAD"))
	return f
}

func (f *fixture) write(name, text string) {
	f.t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = f.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (f *fixture) changelog(bullets ...string) {
	f.write("CHANGELOG.md", "# Changelog\n\n## Unreleased\n\n"+strings.Join(bullets, "\n")+
		"\n\n## v0.1.0 (2026-11-26, commit "+f.head+")\n\n- The first release.\n")
}

func (f *fixture) config() config {
	return config{
		Repo: f.dir, Packages: []string{"example.com/m/p"}, Apidiff: apidiffModule,
		Cache: filepath.Join(f.dir, ".cache"),
		// The module cache as the proxy: no network in a unit test.
		Env: []string{"GOPROXY=file://" + filepath.Join(goEnvVar(f.t, "GOMODCACHE"), "cache", "download"), "GOSUMDB=off", "GOFLAGS=-mod=mod"},
	}
}

func goEnvVar(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// checkOrSkip runs the check; without apidiff in the module cache (test.sh
// runs the check itself first, which puts it there) the test cannot run.
func checkOrSkip(t *testing.T, cfg config) result {
	t.Helper()
	res, err := check(cfg)
	if err != nil && strings.Contains(err.Error(), "installing") {
		t.Skipf("apidiff is not in the module cache (`go run ./internal/apicheck` once puts it there): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func fixes(res result) string {
	var b bytes.Buffer
	report(res, &b, &b)
	return b.String()
}

// The whole check on a fabricated change: it fails while CHANGELOG.md
// leaves a change out or words an incompatible one wrongly, and passes
// once every change has its line.
func TestCheckAgainstARelease(t *testing.T) {
	f := newFixture(t)
	f.changelog()
	if res := checkOrSkip(t, f.config()); len(res.Changes) != 0 || len(res.Problems) != 0 {
		t.Fatalf("the release against itself:\n%s", fixes(res))
	}

	f.write("p/p.go", changedP)
	res := checkOrSkip(t, f.config())
	if len(res.Changes) != 3 || len(res.Problems) != 3 {
		t.Fatalf("want 3 changes (B, C removed, D added), each a problem, got:\n%s", fixes(res))
	}

	f.changelog("- p.D: added.", "- p.B: removed.", "- p.C: removed.")
	res = checkOrSkip(t, f.config())
	if len(res.Problems) != 1 || res.Problems[0].Change.Name != "p.C" || !strings.Contains(res.Problems[0].Fix, "Deprecated") {
		t.Fatalf("want one problem, p.C removed without deprecation, got:\n%s", fixes(res))
	}
	if code := report(res, new(bytes.Buffer), new(bytes.Buffer)); code != 1 {
		t.Errorf("exit code %d with a problem, want 1", code)
	}

	f.changelog("- p.D: added.", "- p.B: removed.", "- p.C: removed; **breaking**, nobody called it.")
	res = checkOrSkip(t, f.config())
	if len(res.Problems) != 0 {
		t.Fatalf("every change recorded, yet:\n%s", fixes(res))
	}
	if code := report(res, new(bytes.Buffer), new(bytes.Buffer)); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

// A clone without the release's commit is told how to get it.
func TestCheckWithoutTheReleaseCommit(t *testing.T) {
	f := newFixture(t)
	f.write("p/p.go", changedP)
	f.git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "next")

	shallow := t.TempDir()
	if out, err := exec.Command("git", "clone", "-q", "--depth", "1", "file://"+f.dir, shallow).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	f.changelog()
	if err := os.WriteFile(filepath.Join(shallow, "CHANGELOG.md"), readFileBytes(t, filepath.Join(f.dir, "CHANGELOG.md")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := f.config()
	cfg.Repo = shallow
	if _, err := check(cfg); err == nil || !strings.Contains(err.Error(), "git fetch --unshallow") {
		t.Errorf("shallow clone: error %v, want one saying git fetch --unshallow", err)
	}

	f.write("CHANGELOG.md", "## Unreleased\n\n## v0.1.0 (commit deadbee)\n")
	if _, err := check(f.config()); err == nil || !strings.Contains(err.Error(), "deadbee") || !strings.Contains(err.Error(), "correct the heading") {
		t.Errorf("unknown commit: error %v, want one naming deadbee and saying what to do", err)
	}
}

func readFileBytes(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunRefusesArguments(t *testing.T) {
	var stderr bytes.Buffer
	if code := run([]string{"extra"}, new(bytes.Buffer), &stderr); code != 2 || !strings.Contains(stderr.String(), "usage") {
		t.Errorf("exit %d, stderr %q; want 2 and the usage", code, stderr.String())
	}
}
