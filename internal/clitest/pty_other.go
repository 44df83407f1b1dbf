//go:build !linux

package clitest

import (
	"os"
	"testing"
)

// PTY skips the test: it opens pseudo-terminals on Linux only.
func PTY(t testing.TB) (control, term *os.File) {
	t.Skip("clitest.PTY opens pseudo-terminals on Linux only")
	return nil, nil
}
