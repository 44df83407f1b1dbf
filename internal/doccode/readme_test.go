package doccode

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/buildinfo"
)

// readme returns the module's root and its README.md.
func readme(t *testing.T) (root, md string) {
	t.Helper()
	root, err := Root(".")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return root, string(b)
}

// section is the part of md under heading, a line of its own, up to the
// next heading of its level or above; "" when md has no such heading.
func section(md, heading string) string {
	lines := strings.Split(md, "\n")
	level := strings.Index(heading, " ")
	for i, l := range lines {
		if l != heading {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if k := strings.Index(lines[j], " "); k > 0 && k <= level && strings.Trim(lines[j][:k], "#") == "" {
				return strings.Join(lines[i+1:j], "\n")
			}
		}
		return strings.Join(lines[i+1:], "\n")
	}
	return ""
}

// indentedBlocks are the Markdown code blocks of text indented by four
// spaces, each as its lines without the indent.
func indentedBlocks(text string) [][]string {
	var blocks [][]string
	var cur []string
	for _, l := range append(strings.Split(text, "\n"), "") {
		if c, ok := strings.CutPrefix(l, "    "); ok {
			cur = append(cur, c)
		} else if cur != nil {
			blocks, cur = append(blocks, cur), nil
		}
	}
	return blocks
}

// TestCheckoutInstructions: README's ways to use tsys from a checkout
// work as they are written, in a module outside the repository: each
// block of commands, run by sh next to a checkout in ../tsys, builds and
// runs README's first program, which prints what its comment says. A
// program of that module built on cli names the tsys it was built with in
// its version line: the checkout's release, +dev.
func TestCheckoutInstructions(t *testing.T) {
	root, md := readme(t)
	var program string
	for _, b := range MarkdownBlocks("README.md", section(md, "## A first program")) {
		if strings.HasPrefix(b.Text, "package main") {
			program = b.Text
		}
	}
	want := regexp.MustCompile(`fmt\.Println\(.*\) // (.+)`).FindStringSubmatch(program)
	if want == nil {
		t.Fatal(`README.md's "A first program" has no Go block of package main that prints and says what, in a comment`)
	}
	blocks := indentedBlocks(section(md, "## Using tsys from a checkout"))
	if len(blocks) != 2 {
		t.Fatalf(`README.md's "Using tsys from a checkout" has %d blocks of commands, want 2 (a workspace, a replace)`, len(blocks))
	}
	deadline := time.Now().Add(5 * time.Minute)
	if d, ok := t.Deadline(); ok {
		deadline = d.Add(-10 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOWORK=") { // the block's own go.work, or none
			env = append(env, kv)
		}
	}
	ways := []struct{ name, mark string }{{"workspace", "go work init"}, {"replace", "-replace="}}
	for i, block := range blocks {
		way := ways[i]
		t.Run(way.name, func(t *testing.T) {
			if !slices.ContainsFunc(block, func(l string) bool { return strings.Contains(l, way.mark) }) {
				t.Fatalf("block %d is not the %s way (%s): %q", i+1, way.name, way.mark, block)
			}
			dir := t.TempDir()
			if err := os.Symlink(root, filepath.Join(dir, "tsys")); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "first", "main.go"), program)
			write(t, filepath.Join(dir, "first", "cmd", "prog", "main.go"),
				"package main\n\nimport \"github.com/tsys-go/tsys/cli\"\n\nfunc main() { cli.Main(cli.Config{Name: \"prog\"}) }\n")
			out := sh(ctx, t, dir, env, strings.Join(block, "\n"))
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if got := lines[len(lines)-1]; got != want[1] {
				t.Errorf("the program printed %q last, want %q as README's comment says:\n%s", got, want[1], out)
			}
			version := strings.TrimSpace(sh(ctx, t, filepath.Join(dir, "first"), env, "go run ./cmd/prog version"))
			if w := "prog (devel) tsys " + buildinfo.Release + "+dev go1."; !strings.HasPrefix(version, w) {
				t.Errorf("prog version: %q, want %q...", version, w)
			}
		})
	}
}

func write(t *testing.T, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sh runs script with sh -e in dir and returns its output; a failure
// fails the test with it.
func sh(ctx context.Context, t *testing.T, dir string, env []string, script string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("in %s, %q: %v\n%s", dir, script, err, out)
	}
	return string(out)
}

// TestLayoutListsEveryFolder: README.md's layout table has a row for
// every folder of the repository that holds files, down through folders
// that hold only folders (internal, cmd, internal/net), and no row for
// one that does not exist.
func TestLayoutListsEveryFolder(t *testing.T) {
	root, md := readme(t)
	table := section(md, "## Layout")
	listed := map[string]bool{}
	for _, l := range strings.Split(table, "\n") {
		cells := strings.Split(l, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[1], -1) {
			listed[m[1]] = true
		}
	}
	if len(listed) < 20 {
		t.Fatalf("README.md's layout table lists %d folders: is its heading still \"## Layout\"?", len(listed))
	}
	var folders []string
	var walk func(rel string)
	walk = func(rel string) {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		var subs []string
		files := false
		for _, e := range entries {
			switch {
			case strings.HasPrefix(e.Name(), "."):
			case e.IsDir():
				subs = append(subs, path.Join(rel, e.Name()))
			default:
				files = true
			}
		}
		if files && rel != "" {
			folders = append(folders, rel)
			return
		}
		for _, s := range subs {
			walk(s)
		}
	}
	walk("")
	for _, f := range folders {
		if !listed[f] {
			t.Errorf("README.md's layout table has no row for %s: add one that says what it holds", f)
		}
		delete(listed, f)
	}
	for f := range listed {
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err != nil || !fi.IsDir() {
			t.Errorf("README.md's layout table lists %s, which is no folder of the repository", f)
		}
	}
}

// TestReadmeNamesTheRelease: README.md's first screen names the newest
// release in its go get line and the Go version go.mod asks for, and its
// way to use a checkout names the release its version line reports.
func TestReadmeNamesTheRelease(t *testing.T) {
	root, md := readme(t)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	top, _, _ := strings.Cut(md, "\n## ")
	for _, want := range []string{
		"go get github.com/tsys-go/tsys@" + buildinfo.Release,
		"`go " + string(goLine[1]) + "`",
	} {
		if !strings.Contains(top, want) {
			t.Errorf("README.md's first lines, above its first section, lack %q", want)
		}
	}
	checkout := section(md, "## Using tsys from a checkout")
	for _, want := range []string{"github.com/tsys-go/tsys@" + buildinfo.Release, "`" + buildinfo.Release + "+dev`"} {
		if !strings.Contains(checkout, want) {
			t.Errorf("README.md's \"Using tsys from a checkout\" lacks %q", want)
		}
	}
}
