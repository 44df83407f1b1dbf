package transport

import (
	"net"
	"syscall"
)

// probe tells, without reading, whether bytes of nc have arrived that
// have not been read (sockHello if they start a Hello, else
// sockWaiting), none have (sockEmpty), or the peer has hung up
// (sockGone); sockEmpty if it cannot tell.
func probe(nc net.Conn) sockState {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return sockEmpty
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return sockEmpty
	}
	st := sockEmpty
	var b [headerLen]byte
	rc.Control(func(fd uintptr) {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == syscall.EAGAIN || err == syscall.EINTR:
		case err != nil || n <= 0: // reset, or end of stream
			st = sockGone
		default:
			st = arrived(b[:n])
		}
	})
	return st
}

// peekFrame returns up to limit of the bytes of nc that have arrived and
// not been read, leaving them unread; nil if none or it cannot tell.
func peekFrame(nc net.Conn, limit int) []byte {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	b := make([]byte, limit)
	n := 0
	rc.Control(func(fd uintptr) {
		n, _, err = syscall.Recvfrom(int(fd), b, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	})
	if err != nil || n <= 0 {
		return nil
	}
	return b[:n]
}
