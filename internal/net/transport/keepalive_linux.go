package transport

import (
	"syscall"
)

// Linux's socket options of keepalive.go, by number: package syscall does
// not name them.
const (
	tcpUserTimeout = 0x12 // TCP_USER_TIMEOUT, Linux 2.6.37
	tcpRTOMaxMS    = 0x2c // TCP_RTO_MAX_MS, Linux 6.15
)

// tuneRaw is the dialer's Control: it sets the options before connect.
func tuneRaw(_, _ string, rc syscall.RawConn) error {
	return rc.Control(func(fd uintptr) { setProgressOpts(fd) })
}

// setProgressOpts sets maxRTO and userTimeout on socket fd where the
// kernel has them. A kernel without one keeps TCP's own schedule, which
// costs time after a cut, never correctness: the errors are not the
// connection's.
func setProgressOpts(fd uintptr) {
	syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, tcpUserTimeout, int(userTimeout.Milliseconds()))
	syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, tcpRTOMaxMS, int(maxRTO.Milliseconds()))
}
