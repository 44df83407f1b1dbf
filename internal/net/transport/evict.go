package transport

import (
	"io"
	"net"
)

// evict closes nc, a connection the budget let go of to admit a newer
// one: idle in the handshake, or parked longest. It is reset, as a
// refusal is, counted with the refusals and logged from their bucket.
func (t *Transport) evict(nc net.Conn) {
	t.st.overBudgetConns.Add(1)
	t.refusals.Warn("transport: refused connection: idle in the handshake, closed to admit a newer one from its address",
		"peer_addr", nc.RemoteAddr().String(), "idle_after", t.budget.idleGrace)
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	nc.Close()
}

// progressReader tells the budget each time the handshake reads bytes
// of its connection, until the handshake ends (off): a handshake that
// reads is not idle.
type progressReader struct {
	io.Reader
	progress func()
	off      bool // set by the reading goroutine once the handshake is over
}

func (r *progressReader) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	if n > 0 && !r.off {
		r.progress()
	}
	return n, err
}
