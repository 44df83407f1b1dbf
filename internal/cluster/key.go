package cluster

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"runtime"
)

// ReadKeyFile reads a cluster key file and derives the 32-byte key that
// both memberlist's AES keyring and the transport's HMAC use. Any content
// of at least 16 bytes will do (e.g. the output of `head -c 32
// /dev/urandom | base64`); surrounding white space is ignored.
func ReadKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading key file: %w", err)
	}
	b = bytes.TrimSpace(b)
	if len(b) < 16 {
		return nil, fmt.Errorf("key file %s: %d bytes of key, want at least 16", path, len(b))
	}
	sum := sha256.Sum256(b)
	return sum[:], nil
}

// KeyFileWarning is a warning when the key file at path may be read by
// users other than its owner (group or other permission bits set), as ssh
// warns of a private key; "" when it may not, or when the platform has no
// such bits. A warning, not a refusal: a key shared through a group can
// be deliberate, and the key works all the same.
func KeyFileWarning(path string) string {
	if runtime.GOOS == "windows" {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "" // ReadKeyFile reports what is wrong with the file
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Sprintf("key file %s can be read by users other than its owner (mode %04o): whoever reads it can join the cluster and run tasks on it; make it private with chmod 600 %s", path, perm, path)
	}
	return ""
}
