package transport

import (
	"net"
	"syscall"
	"unsafe"
)

// bytesWaiting reports whether bytes of nc have arrived that have not
// been read (the socket's receive queue, FIONREAD), false if it cannot
// tell.
func bytesWaiting(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var n int32
	var errno syscall.Errno
	if rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	}) != nil || errno != 0 {
		return false
	}
	return n > 0
}
