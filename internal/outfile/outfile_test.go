package outfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheckLeavesFilesAsTheyWere: an existing file keeps its contents, a
// missing one is not left behind, and a path that cannot be written says
// so.
func TestCheckLeavesFilesAsTheyWere(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.json")
	if err := os.WriteFile(kept, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(kept); err != nil {
		t.Fatalf("an existing writable file: %v", err)
	}
	if b, _ := os.ReadFile(kept); string(b) != "precious" {
		t.Errorf("Check changed an existing file to %q", b)
	}
	missing := filepath.Join(dir, "new.json")
	if err := Check(missing); err != nil {
		t.Fatalf("a new file in a writable directory: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("Check left %s behind: %v", missing, err)
	}
	if err := Check(filepath.Join(dir, "no-such-dir", "x.json")); err == nil {
		t.Error("a file in a missing directory: no error")
	}
}
