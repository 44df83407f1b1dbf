package launch

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Key is the cluster key of a launched job: an HMAC of the job's name
// (Launch.Job) under the user's secret. Every rank of the job computes
// the same key from the same secret, with nothing sent; another job of
// the user gets another key; and someone who knows the job's name (SLURM
// shows it to every user) but not the secret cannot compute it.
func Key(secret []byte, job string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("tsys launch key\x00"))
	m.Write([]byte(job))
	return m.Sum(nil)
}

// Fingerprint is a short name of a key that gives nothing of it away:
// two ranks whose keys differ show different fingerprints.
func Fingerprint(key []byte) string {
	sum := sha256.Sum256(append([]byte("tsys key fingerprint\x00"), key...))
	return hex.EncodeToString(sum[:4])
}

// secretBytes is the size of a secret Secret makes.
const secretBytes = 32

// SecretPath is where the user's launch secret lives: tsys/launch.secret
// in the user's configuration directory ($XDG_CONFIG_HOME, else
// ~/.config), which a cluster shares between its nodes with the home
// directory.
func SecretPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no directory for the launch secret (%v): set HOME, or give --key-file", err)
	}
	return filepath.Join(dir, "tsys", "launch.secret"), nil
}

// Secret reads the user's launch secret at path, making it first if it
// does not exist: 32 random bytes, readable by the user alone, in a
// directory only the user may enter. Ranks that start together may all
// find it missing: each writes a candidate of its own and links it into
// place, which only the first does, and all read the one that won. It
// refuses a secret other users may read or that another user owns: the
// keys derived from it would be theirs too.
func Secret(path string) ([]byte, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("making the launch secret's directory: %w; give --key-file instead", err)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := makeSecret(path); err != nil {
			return nil, err
		}
	}
	if err := checkPrivate(path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the launch secret: %w", err)
	}
	if len(b) < 16 {
		return nil, fmt.Errorf("the launch secret %s holds %d bytes, want at least 16: remove it, and the next launch makes a new one", path, len(b))
	}
	return b, nil
}

// makeSecret writes a new secret and links it to path unless another
// process did first.
func makeSecret(path string) error {
	b := make([]byte, secretBytes)
	rand.Read(b)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".launch.secret-*")
	if err != nil {
		return fmt.Errorf("making the launch secret: %w; give --key-file instead", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the launch secret: %w", err)
	}
	// CreateTemp made it 0600. A link fails where the name exists:
	// another rank's secret won, and is the one every rank reads.
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("placing the launch secret: %w", err)
	}
	return nil
}

// checkPrivate refuses a secret others may read or that another user
// owns.
func checkPrivate(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("the launch secret: %w", err)
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("the launch secret %s can be read by users other than its owner (mode %04o): whoever reads it can join your jobs; make it private with chmod 600 %s", path, perm, path)
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("the launch secret %s belongs to user %d, not to you (%d): remove it, or set XDG_CONFIG_HOME to a directory of your own", path, uid, os.Getuid())
	}
	return nil
}
