package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestProfileNamesThisTree holds default.pgo to the packages of this
// tree. Go matches a profile to the code by function names, which carry
// their package's path: after a package moves (sched to internal/sched),
// a profile that still names the old path is silently ignored for it, and
// the command loses what the profile bought (bench/README.md, "Profile-
// guided optimisation"). Regenerate it with bench/pgo.sh, or rename its
// paths, when this fails.
func TestProfileNamesThisTree(t *testing.T) {
	raw, err := os.ReadFile("default.pgo")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("default.pgo is not a gzipped pprof profile: %v", err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	// A function's name is its package's path, a dot, and the name.
	names := regexp.MustCompile(`github\.com/tsys-go/tsys/([a-z0-9_/]+)\.`).FindAllSubmatch(body, -1)
	if len(names) == 0 {
		t.Fatal("default.pgo names no function of this module: was it recorded from the tsys command?")
	}
	var missing []string
	for _, m := range names {
		dir := filepath.Join("..", "..", filepath.FromSlash(string(m[1])))
		if fi, err := os.Stat(dir); (err != nil || !fi.IsDir()) && !slices.Contains(missing, string(m[1])) {
			missing = append(missing, string(m[1]))
		}
	}
	if len(missing) > 0 {
		t.Errorf("default.pgo names functions of packages this tree no longer has: %v; regenerate it (bench/pgo.sh cmd/tsys/default.pgo) or rename their paths", missing)
	}
}
