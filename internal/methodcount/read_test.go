package methodcount

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRead: each form of receiver counts under its type's name, a test
// file's methods not at all, and each embedded field is named by its
// type with the position of its line.
func TestRead(t *testing.T) {
	ts, err := Read(filepath.Join("testdata", "shapes"))
	if err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string][]string{
		"plain":   {"a", "b"},
		"generic": {"c"},
		"pair":    {"d"},
	} {
		if got := Names(ts.Methods[typ]); !slices.Equal(got, want) {
			t.Errorf("methods of %s: %v, want %v", typ, got, want)
		}
	}
	if len(ts.Methods) != 3 {
		t.Errorf("methods of %d types, want 3: %v", len(ts.Methods), ts.Methods)
	}
	embeds := ts.Embeds["outer"]
	if got, want := Names(embeds), []string{"plain", "generic", "strings.Builder"}; !slices.Equal(got, want) {
		t.Errorf("outer embeds %v, want %v", got, want)
	}
	if len(ts.Embeds) != 1 {
		t.Errorf("embeds of %d structs, want 1: %v", len(ts.Embeds), ts.Embeds)
	}
	for _, e := range embeds {
		if !strings.HasSuffix(e.Pos.Filename, "shapes.go") || e.Pos.Line == 0 {
			t.Errorf("embedded %s at %s, want a line of shapes.go", e.Name, e.Pos)
		}
	}
}

// TestReadNoPackage: a folder with no Go file is an error that names it.
func TestReadNoPackage(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("Read(%s) = %v, want an error naming the folder", dir, err)
	}
}

// TestOverAndUnlisted: a type over the bound is named with its methods,
// one at it is not, and an embedded field is reported unless listed for
// its struct.
func TestOverAndUnlisted(t *testing.T) {
	ts, err := Read(filepath.Join("testdata", "shapes"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ts.Over(2); got != nil {
		t.Errorf("Over(2) = %q, want none: no type has more than 2 methods", got)
	}
	if got := ts.Over(1); len(got) != 1 || !strings.HasPrefix(got[0], "plain has 2 methods, more than 1") || !strings.HasSuffix(got[0], ": a, b") {
		t.Errorf("Over(1) = %q, want plain named with its methods a and b", got)
	}
	if got := ts.Unlisted(nil); len(got) != 3 || !strings.Contains(got[2], "outer embeds strings.Builder") {
		t.Errorf("Unlisted(nil) = %q, want outer's three embedded fields", got)
	}
	got := ts.Unlisted(map[string][]string{"outer": {"plain", "strings.Builder"}, "generic": {"plain"}})
	if len(got) != 1 || !strings.Contains(got[0], "shapes.go:") || !strings.Contains(got[0], "outer embeds generic") {
		t.Errorf("Unlisted with plain and strings.Builder allowed = %q, want generic alone, with its position", got)
	}
}
