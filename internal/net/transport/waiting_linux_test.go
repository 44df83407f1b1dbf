package transport

import (
	"net"
	"testing"
	"time"
)

// TestBytesWaiting: a socket tells whether bytes have arrived that nobody
// has read, before and after they are read.
func TestBytesWaiting(t *testing.T) {
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
	if bytesWaiting(s) {
		t.Fatal("bytes waiting before any was sent")
	}
	c.Write([]byte("hello"))
	for deadline := time.Now().Add(10 * time.Second); !bytesWaiting(s); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("bytes sent never show as waiting")
		}
	}
	s.Read(make([]byte, 16))
	if bytesWaiting(s) {
		t.Fatal("bytes waiting after all were read")
	}
}
