//go:build !linux

package transport

import "net"

// bytesWaiting cannot tell here: a handshake is idle until its goroutine
// reads from it.
func bytesWaiting(net.Conn) bool { return false }
