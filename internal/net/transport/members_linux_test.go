package transport

import (
	"net"
	"testing"
	"time"
)

// fakeMembers knows members by name and host.
type fakeMembers map[string]string

func (m fakeMembers) Member(name string, ip net.IP) bool { return m[name] == ip.String() }

// TestMemberHello: the Hello waiting on an accepted socket, unread, is
// read by a look that leaves it in place; it names a member only with
// the member's name, from the member's host, whole and of this version.
func TestMemberHello(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	members := fakeMembers{"a": "127.0.0.1", "far": "10.1.2.3"}
	helloOf := func(name string) []byte {
		return frameBytes(false, helloMsg(hello{version: ProtocolVersion, name: name, nonce: make([]byte, nonceLen)}))
	}
	whole := helloOf("a")
	for _, tc := range []struct {
		what string
		sent []byte
		want bool
	}{
		{"a member's Hello from its host", whole, true},
		{"a member's Hello from another host", helloOf("far"), false},
		{"a stranger's Hello", helloOf("stranger"), false},
		{"half a member's Hello", whole[:len(whole)-5], false},
		{"nothing", nil, false},
		{"garbage", []byte("GET / HTTP/1.1\r\n\r\n"), false},
	} {
		dialled, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		accepted, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		if len(tc.sent) > 0 {
			if _, err := dialled.Write(tc.sent); err != nil {
				t.Fatal(err)
			}
			// Bounded: the bytes cross loopback at once.
			for deadline := time.Now().Add(10 * time.Second); probe(accepted) == sockEmpty && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		if got := memberHello(members, accepted); got != tc.want {
			t.Errorf("%s: memberHello = %v, want %v", tc.what, got, tc.want)
		}
		if len(tc.sent) > 0 {
			// The look read nothing: the handshake still reads it all.
			b := make([]byte, len(tc.sent))
			accepted.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, err := accepted.Read(b); err != nil || n == 0 || b[0] != tc.sent[0] {
				t.Errorf("%s: after the look, read %d bytes, %v", tc.what, n, err)
			}
		}
		dialled.Close()
		accepted.Close()
	}
}
