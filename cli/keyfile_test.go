package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestKeyFileReadableByOthersWarns: a key file that group or others can
// read gets a warning naming the file, its mode and the chmod that fixes
// it, as ssh warns of a private key; a private one gets none; both work.
func TestKeyFileReadableByOthersWarns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits to check")
	}
	key := filepath.Join(t.TempDir(), "cluster.key")
	if err := os.WriteFile(key, []byte("0123456789abcdef0123456789abcdef"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Name: "prog"}
	for _, c := range []struct {
		mode os.FileMode
		warn bool
	}{{0o600, false}, {0o400, false}, {0o640, true}, {0o644, true}, {0o604, true}} {
		if err := os.Chmod(key, c.mode); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := Exec(cfg, []string{"token", "--key-file", key}, &out, &errb)
		if code != 0 || out.Len() == 0 {
			t.Fatalf("mode %04o: exit %d, stdout %q, stderr %q: the key must work all the same", c.mode, code, out.String(), errb.String())
		}
		warned := strings.Contains(errb.String(), "warning: key file "+key+" can be read by users other than its owner")
		if warned != c.warn {
			t.Errorf("mode %04o: warned %v, want %v (stderr %q)", c.mode, warned, c.warn, errb.String())
		}
		if c.warn && !strings.Contains(errb.String(), "chmod 600 "+key) {
			t.Errorf("mode %04o: the warning does not say how to fix it: %q", c.mode, errb.String())
		}
	}
	// A file that cannot be read is ReadKeyFile's error, not a warning.
	if _, err := readKeyFile(filepath.Join(t.TempDir(), "absent"), io.Discard); err == nil {
		t.Error("an absent key file was read")
	}
}
