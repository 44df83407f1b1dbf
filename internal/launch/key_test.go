package launch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestKey(t *testing.T) {
	a, b := []byte("secret of user a, 32 bytes long."), []byte("secret of user b, 32 bytes long.")
	if !bytes.Equal(Key(a, "slurm job 1 step 0"), Key(a, "slurm job 1 step 0")) {
		t.Error("one secret and one job make two keys")
	}
	if bytes.Equal(Key(a, "slurm job 1 step 0"), Key(a, "slurm job 1 step 1")) {
		t.Error("two steps share a key")
	}
	if bytes.Equal(Key(a, "slurm job 1 step 0"), Key(b, "slurm job 1 step 0")) {
		t.Error("two users share a job's key")
	}
	if len(Key(a, "x")) != 32 || Fingerprint(Key(a, "x")) == Fingerprint(Key(b, "x")) || len(Fingerprint(Key(a, "x"))) != 8 {
		t.Error("key size or fingerprint")
	}
}

// TestSecretMadeOnce: ranks that start together and find no secret all
// end up with the one that won, private to the user.
func TestSecretMadeOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "tsys", "launch.secret")
	var wg sync.WaitGroup
	got := make([][]byte, 8)
	errs := make([]error, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i], errs[i] = Secret(path) }()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || !bytes.Equal(got[i], got[0]) || len(got[i]) != secretBytes {
			t.Fatalf("rank %d: %x, %v; rank 0: %x", i, got[i], errs[i], got[0])
		}
	}
	fi, _ := os.Stat(path)
	di, _ := os.Stat(filepath.Dir(path))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("secret mode %v, its directory %v: want 0600 and 0700", fi.Mode().Perm(), di.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".launch.secret-*"))
	if len(left) > 0 {
		t.Errorf("candidates left behind: %v", left)
	}
	again, err := Secret(path)
	if err != nil || !bytes.Equal(again, got[0]) {
		t.Errorf("read again: %x, %v", again, err)
	}
	os.Chmod(path, 0o640)
	if _, err := Secret(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a secret others may read: %v", err)
	}
	os.WriteFile(path, []byte("short"), 0o600)
	os.Chmod(path, 0o600)
	if _, err := Secret(path); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("a short secret: %v", err)
	}
}

func TestSecretPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	if p, err := SecretPath(); err != nil || p != "/cfg/tsys/launch.secret" {
		t.Errorf("SecretPath = %s, %v", p, err)
	}
}
