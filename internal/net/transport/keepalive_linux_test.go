package transport

import (
	"errors"
	"log/slog"
	"net"
	"syscall"
	"testing"
)

// TestConnectionsGetProgressOptions checks that both ends of a transport
// connection, the dialled and the accepted, carry keepalive.go's options,
// read back from the kernel.
func TestConnectionsGetProgressOptions(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	var got inbox
	rx, err := Listen(Config{Name: "rx", Logger: quiet}, got.handle)
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	tx, err := Listen(Config{Name: "tx", Logger: quiet}, func(string, *Message) {})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	if err := tx.SendSync(rx.Addr(), testMessage{Type: tPing}.msg()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the ping", func() bool { return got.len() == 1 })
	check := func(side string, tr *Transport) {
		t.Helper()
		tr.mu.Lock()
		var nc net.Conn
		for c := range tr.conns {
			c.mu.Lock()
			nc = c.nc
			c.mu.Unlock()
		}
		tr.mu.Unlock()
		if nc == nil {
			t.Fatalf("%s: no connection", side)
		}
		rc, err := nc.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		opt := func(level, name int) (v int, err error) {
			rc.Control(func(fd uintptr) { v, err = syscall.GetsockoptInt(int(fd), level, name) })
			return v, err
		}
		for _, o := range []struct {
			what        string
			level, name int
			want        int
		}{
			{"TCP_USER_TIMEOUT", syscall.IPPROTO_TCP, tcpUserTimeout, int(userTimeout.Milliseconds())},
			{"SO_KEEPALIVE", syscall.SOL_SOCKET, syscall.SO_KEEPALIVE, 1},
			{"TCP_KEEPIDLE", syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE, int(keepIdle.Seconds())},
			{"TCP_KEEPINTVL", syscall.IPPROTO_TCP, syscall.TCP_KEEPINTVL, int(keepInterval.Seconds())},
			{"TCP_RTO_MAX_MS", syscall.IPPROTO_TCP, tcpRTOMaxMS, int(maxRTO.Milliseconds())},
		} {
			v, err := opt(o.level, o.name)
			if o.name == tcpRTOMaxMS && errors.Is(err, syscall.ENOPROTOOPT) {
				t.Logf("%s: this kernel has no %s (Linux 6.15 and later)", side, o.what)
				continue
			}
			if err != nil || v != o.want {
				t.Errorf("%s: %s = %d (%v), want %d", side, o.what, v, err, o.want)
			}
		}
	}
	check("dialled", tx)
	check("accepted", rx)
}
