package membership

import (
	"errors"
	"net"
	"strconv"
)

// DefaultPort is the gossip port a seed given without one is dialled on:
// the port `tsys node` binds by default. memberlist itself would dial a
// port-less seed on this node's own gossip port, which for a node bound to
// port 0 is a random one only this node listens on, so the node would
// join itself and wait for peers that never come.
const DefaultPort = 7946

// ErrSelfJoin is wrapped by Start's error when the only seed that
// answered was this node itself.
var ErrSelfJoin = errors.New("the seed is this node itself")

// seedAddrs gives every seed a port: its own, or DefaultPort.
func seedAddrs(seeds []string) []string {
	out := make([]string, len(seeds))
	for i, s := range seeds {
		out[i] = seedAddr(s)
	}
	return out
}

// seedAddr is s as HOST:PORT; a bare host (or IPv6 address, with or
// without brackets) gets DefaultPort.
func seedAddr(s string) string {
	if _, _, err := net.SplitHostPort(s); err == nil {
		return s
	}
	host := s
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	return net.JoinHostPort(host, strconv.Itoa(DefaultPort))
}
