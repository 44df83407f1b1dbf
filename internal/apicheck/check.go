package main

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// config is one check: the repository, its public packages and the
// apidiff to run.
type config struct {
	Repo     string
	Packages []string // import paths
	Apidiff  string   // module@version
	Cache    string   // where releases' APIs are saved; "" is the user's cache directory
	Env      []string // extra environment of the go commands (tests: GOPROXY=off)
}

// result is a check's outcome: every change found, and those that
// CHANGELOG.md does not record as its rule asks.
type result struct {
	Baseline string
	Changes  []change
	Problems []problem
}

// check compares the API at CHANGELOG.md's newest release with the
// working tree and judges the changes against its Unreleased section.
func check(cfg config) (result, error) {
	var res result
	text, err := os.ReadFile(filepath.Join(cfg.Repo, "CHANGELOG.md"))
	if err != nil {
		return res, fmt.Errorf("reading the changelog: %w", err)
	}
	cl, err := parseChangelog(string(text))
	if err != nil {
		return res, err
	}
	res.Baseline = cl.Heading
	module, err := modulePath(cfg.Repo)
	if err != nil {
		return res, err
	}
	// Even when the release's API is saved, a clone without the commit
	// is told so: its next check on another machine would fail.
	if err := haveCommit(cfg.Repo, cl.Baseline); err != nil {
		return res, err
	}
	tmp, err := os.MkdirTemp("", "apicheck-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(tmp)
	tool, err := installApidiff(cfg.Apidiff, tmp, goEnv(cfg.Env...))
	if err != nil {
		return res, err
	}
	base, err := loadBaseline(cfg, tool, module, cl.Baseline, tmp)
	if err != nil {
		return res, err
	}
	deprecated, err := base.deprecated()
	if err != nil {
		return res, err
	}
	changes, err := compareAll(cfg, tool, module, base)
	if err != nil {
		return res, err
	}
	res.Changes = changes
	res.Problems = judge(changes, cl.Bullets, deprecated)
	return res, nil
}

// compareAll compares every package with the release at once and gathers
// their changes in the packages' order.
func compareAll(cfg config, tool apidiff, module string, base baselineAPI) ([]change, error) {
	changes := make([][]change, len(cfg.Packages))
	errs := make([]error, len(cfg.Packages))
	var wg sync.WaitGroup
	for i, p := range cfg.Packages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			changes[i], errs[i] = comparePackage(tool, module, p, cfg.Repo, base)
		}()
	}
	wg.Wait()
	var all []change
	for i := range cfg.Packages {
		if errs[i] != nil {
			return nil, errs[i]
		}
		all = append(all, changes[i]...)
	}
	return all, nil
}

// comparePackage is one package's changes since the release. A package
// new since then, or gone, is one change named "package NAME".
func comparePackage(tool apidiff, module, importPath, repo string, base baselineAPI) ([]change, error) {
	rel, ok := strings.CutPrefix(importPath, module)
	if !ok {
		return nil, fmt.Errorf("public package %s is not in module %s: correct the list in internal/apicheck/packages.go", importPath, module)
	}
	name := path.Base(importPath)
	hadIt, hasIt := !base.absent(importPath), isPackageDir(filepath.Join(repo, rel))
	switch {
	case !hadIt && !hasIt:
		return nil, fmt.Errorf("public package %s is in neither the release nor the working tree: correct the list in internal/apicheck/packages.go", importPath)
	case !hadIt:
		return []change{{Name: "package " + name, What: "added"}}, nil
	case !hasIt:
		return []change{{Name: "package " + name, What: "removed", Incompatible: true}}, nil
	}
	out, err := tool.diff(repo, importPath, base.export(importPath))
	if err != nil {
		return nil, err
	}
	return parseReport(name, out)
}

// isPackageDir says whether dir holds a package's non-test Go source.
func isPackageDir(dir string) bool {
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, m := range matches {
		if !strings.HasSuffix(m, "_test.go") {
			return true
		}
	}
	return false
}

var moduleLine = regexp.MustCompile(`(?m)^module\s+(\S+)\s*$`)

func modulePath(repo string) (string, error) {
	b, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("the check runs at the module's root: %w", err)
	}
	m := moduleLine.FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("%s has no module line", filepath.Join(repo, "go.mod"))
	}
	return string(m[1]), nil
}

// report prints the outcome: each change and how CHANGELOG.md records it,
// then what to fix. It returns the exit code.
func report(res result, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "apicheck: the public API against %q, changes: %d\n", res.Baseline, len(res.Changes))
	for _, c := range res.Changes {
		fmt.Fprintf(stdout, "  %s\n", c)
	}
	if len(res.Problems) == 0 {
		fmt.Fprintln(stdout, "apicheck: CHANGELOG.md records every change")
		return 0
	}
	fmt.Fprintf(stderr, "apicheck: changes to the public API that CHANGELOG.md does not record as its header asks: %d\n", len(res.Problems))
	for _, p := range res.Problems {
		fmt.Fprintf(stderr, "  %s\n    %s\n", p.Change, p.Fix)
	}
	return 1
}
