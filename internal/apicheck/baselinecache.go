package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// A release's API never changes, so the check saves what it read of it:
// apidiff's export data of each public package and the names deprecated
// there. Reading it again would cost a build of every package of the
// module in a directory new to the build cache (the source directory is
// part of each package's cache key), several seconds of CPU a run.

// baselineAPI is the release's API, as saved in a directory.
type baselineAPI struct{ dir string }

func (b baselineAPI) export(importPath string) string {
	return filepath.Join(b.dir, fileName(importPath)+".export")
}

func (b baselineAPI) absent(importPath string) bool {
	_, err := os.Stat(filepath.Join(b.dir, fileName(importPath)+".absent"))
	return err == nil
}

func (b baselineAPI) deprecated() (map[string]bool, error) {
	text, err := os.ReadFile(filepath.Join(b.dir, "deprecated.txt"))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, n := range strings.Fields(string(text)) {
		out[n] = true
	}
	return out, nil
}

func fileName(importPath string) string { return strings.ReplaceAll(importPath, "/", "_") }

// cacheKey names a saved API by everything it depends on: the commit, the
// packages, apidiff's version (its export format) and Go's.
func cacheKey(cfg config, commit string) string {
	h := sha256.Sum256([]byte(strings.Join(append([]string{cfg.Apidiff, runtime.Version()}, cfg.Packages...), "\n")))
	return commit + "-" + hex.EncodeToString(h[:6])
}

// loadBaseline returns the saved API of commit, reading and saving it
// first if this machine has not yet. Two checks at once each read it and
// the first rename wins: the files are only ever whole.
func loadBaseline(cfg config, tool apidiff, module, commit, tmp string) (baselineAPI, error) {
	root := cfg.Cache
	if root == "" {
		// Without a home (a bare CI environment), the temporary
		// directory still serves the runs of one machine.
		c, err := os.UserCacheDir()
		if err != nil {
			c = os.TempDir()
		}
		root = filepath.Join(c, "tsys-apicheck")
	}
	final := filepath.Join(root, cacheKey(cfg, commit))
	if _, err := os.Stat(filepath.Join(final, "deprecated.txt")); err == nil {
		return baselineAPI{final}, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return baselineAPI{}, err
	}
	staging, err := os.MkdirTemp(root, "new-")
	if err != nil {
		return baselineAPI{}, err
	}
	defer os.RemoveAll(staging)
	src := filepath.Join(tmp, "baseline")
	if err := extractBaseline(cfg.Repo, commit, src); err != nil {
		return baselineAPI{}, err
	}
	if err := saveBaseline(cfg, tool, module, src, staging); err != nil {
		return baselineAPI{}, err
	}
	if err := os.Rename(staging, final); err != nil {
		if _, statErr := os.Stat(filepath.Join(final, "deprecated.txt")); statErr != nil {
			return baselineAPI{}, fmt.Errorf("saving the release's API: %w", err)
		}
	}
	return baselineAPI{final}, nil
}

// saveBaseline reads each public package of the release in src (all at
// once: each is mostly a go list and a type check, which overlap) into
// dir.
func saveBaseline(cfg config, tool apidiff, module, src, dir string) error {
	errs := make([]error, len(cfg.Packages))
	deps := make([][]string, len(cfg.Packages))
	var wg sync.WaitGroup
	for i, p := range cfg.Packages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			deps[i], errs[i] = savePackage(tool, module, p, src, dir)
		}()
	}
	wg.Wait()
	var names []string
	for i := range cfg.Packages {
		if errs[i] != nil {
			return errs[i]
		}
		names = append(names, deps[i]...)
	}
	slices.Sort(names)
	return os.WriteFile(filepath.Join(dir, "deprecated.txt"), []byte(strings.Join(names, "\n")+"\n"), 0o644)
}

// savePackage saves one package's export data, or marks it absent from
// the release, and returns its deprecated names.
func savePackage(tool apidiff, module, importPath, src, dir string) ([]string, error) {
	rel, ok := strings.CutPrefix(importPath, module)
	if !ok {
		return nil, fmt.Errorf("public package %s is not in module %s: correct the list in internal/apicheck/packages.go", importPath, module)
	}
	pkgDir := filepath.Join(src, rel)
	if !isPackageDir(pkgDir) {
		return nil, os.WriteFile(filepath.Join(dir, fileName(importPath)+".absent"), nil, 0o644)
	}
	dep, err := deprecatedNames(path.Base(importPath), pkgDir)
	if err != nil {
		return nil, fmt.Errorf("reading the release's %s: %w", importPath, err)
	}
	if err := tool.write(src, importPath, filepath.Join(dir, fileName(importPath)+".export")); err != nil {
		return nil, err
	}
	var names []string
	for n := range dep {
		names = append(names, n)
	}
	return names, nil
}
