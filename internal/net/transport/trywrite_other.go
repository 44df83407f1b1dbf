//go:build !unix

package transport

import (
	"errors"
	"syscall"
)

// canTryWrite: here every frame goes through the writer goroutine.
const canTryWrite = false

type tryWriter struct{}

func newTryWriter(syscall.RawConn) *tryWriter { return &tryWriter{} }

func (*tryWriter) write([]byte) (int, error) {
	return 0, errors.New("transport: no direct writes on this platform")
}
