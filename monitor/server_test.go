package monitor

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

type fakeNode struct{ draining atomic.Bool }

func (*fakeNode) Name() string      { return "n1" }
func (*fakeNode) Members() []string { return []string{"n1", "n2"} }
func (f *fakeNode) Draining() bool  { return f.draining.Load() }

func get(t *testing.T, url string) (int, health) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, h
}

// TestHealthz: ready with the node's name and member count, 503 while it
// drains.
func TestHealthz(t *testing.T) {
	n := &fakeNode{}
	s, err := Start(Config{Addr: "127.0.0.1:0"}, n)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if code, h := get(t, "http://"+s.Addr()+"/healthz"); code != 200 || h.Status != "ready" || h.Node != "n1" || h.Members != 2 {
		t.Errorf("healthz: %d %+v", code, h)
	}
	n.draining.Store(true)
	if code, h := get(t, "http://"+s.Addr()+"/healthz"); code != 503 || h.Status != "draining" {
		t.Errorf("healthz while draining: %d %+v", code, h)
	}
}

// TestRoutableNeedsAKey: without a cluster key, only loopback.
func TestRoutableNeedsAKey(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		if _, err := Start(Config{Addr: addr}, &fakeNode{}); !errors.Is(err, ErrRoutableWithoutKey) {
			t.Errorf("--http %s without a key: %v", addr, err)
		}
	}
	if _, err := Start(Config{Addr: "nonsense"}, &fakeNode{}); err == nil {
		t.Error("--http nonsense was accepted")
	}
}

// TestCloseLeavesNothing: after Close, with a client that never finished
// its request, no goroutine of the server is left.
func TestCloseLeavesNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := Start(Config{Addr: "127.0.0.1:0"}, &fakeNode{})
	if err != nil {
		t.Fatal(err)
	}
	get(t, "http://"+s.Addr()+"/healthz")
	http.DefaultClient.CloseIdleConnections()
	stalled, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	stalled.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n")) // and never the rest
	closed := time.Now()
	s.Close()
	if took := time.Since(closed); took > 3*time.Second {
		t.Errorf("Close took %v with a stalled client", took)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}
