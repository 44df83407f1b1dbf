package transport

import (
	"net"
	"testing"
	"time"
)

// TestProbe: a socket tells whether bytes have arrived that nobody has
// read, before and after they are read, and whether its peer hung up.
func TestProbe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := probe(s); st != sockEmpty {
		t.Fatalf("before anything was sent: %v, want sockEmpty", st)
	}
	c.Write([]byte("hello"))
	for deadline := time.Now().Add(10 * time.Second); probe(s) != sockWaiting; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("bytes sent never show as waiting")
		}
	}
	s.Read(make([]byte, 16))
	if st := probe(s); st != sockEmpty {
		t.Fatalf("after all was read: %v, want sockEmpty", st)
	}
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
	for deadline := time.Now().Add(10 * time.Second); probe(s) != sockGone; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a reset never shows as gone")
		}
	}
}
