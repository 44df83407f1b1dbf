package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const deprecatedSource = `package p

// Old is old.
//
// Deprecated: use New.
func Old() {}

// New is not.
func New() {}

// Loop is generic.
type Loop[E, R any] struct {
	// Deprecated: use Plan.
	Grain int
	Plan  int
}

// Range is deprecated.
//
// Deprecated: use Split.
func (l *Loop[E, R]) Range() {}

// Deprecated: the whole group's doc counts only for a lone spec.
const Lone = 1

const (
	// Deprecated: use B.
	A = 1
	B = 2
)

// Deprecated: an unexported name is no API.
func hidden() {}

// Policy is an interface.
type Policy interface {
	// Deprecated: use Next.
	Pick() int
	Next() int
}
`

func TestDeprecatedNames(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(deprecatedSource), 0o644); err != nil {
		t.Fatal(err)
	}
	// A test file's names are no API.
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\n// Deprecated: x.\nfunc TestOnly() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := deprecatedNames("p", dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p.A", "p.Lone", "p.Loop.Grain", "p.Loop.Range", "p.Old", "p.Policy.Pick"}
	if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, want) {
		t.Errorf("deprecated %q, want %q", names, want)
	}
}
