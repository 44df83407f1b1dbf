//go:build unix

package transport

import (
	"errors"
	"os"
	"syscall"
)

// canTryWrite: this platform's sockets take a write that does not wait.
const canTryWrite = true

// tryWriter writes to a socket without waiting. Its callback is made once
// per connection, so that a write allocates nothing; one writer at a time
// uses it (conn.writing).
type tryWriter struct {
	rc  syscall.RawConn
	fn  func(fd uintptr) bool
	b   []byte
	n   int
	err error
}

func newTryWriter(rc syscall.RawConn) *tryWriter {
	w := &tryWriter{rc: rc}
	w.fn = func(fd uintptr) bool {
		for {
			w.n, w.err = syscall.Write(int(fd), w.b)
			if w.err != syscall.EINTR {
				return true // done, or no room: either way, do not wait
			}
		}
	}
	return w
}

// write writes as much of b as the socket takes without waiting, once,
// and returns how much that was: 0 for a socket whose buffer is full,
// which is no error (the writer goroutine waits for room). Nor is a
// write deadline past: the writer goroutine's last flush left its own on
// the socket, which a connection idle for longer outlives, and the writer
// sets a fresh one before it writes what this left.
func (w *tryWriter) write(b []byte) (int, error) {
	w.b = b
	err := w.rc.Write(w.fn)
	n, werr := w.n, w.err
	w.b, w.n, w.err = nil, 0, nil
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, nil
	case err != nil:
		return 0, err
	case errors.Is(werr, syscall.EAGAIN):
		return 0, nil
	case werr != nil:
		return 0, werr
	}
	return max(n, 0), nil
}
