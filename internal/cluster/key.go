package cluster

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
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
