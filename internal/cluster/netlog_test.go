package cluster

import (
	"log/slog"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/net/transport"
	"github.com/tsys-go/tsys/internal/proctest"
)

// TestFloodOfEveryMessageLogsBounded: a keyless stranger sends every type
// of message of the vocabulary, and one past it, rounds times each as
// bytes that do not decode, and rounds times each the messages that
// decode and make a node speak up (a drain answer it did not ask for, a
// state that does not decode, a job's start, a refusal of a job). Each
// kind of line the node logs comes at most a burst plus one a second.
func TestFloodOfEveryMessageLogsBounded(t *testing.T) {
	const (
		rounds = 30
		burst  = 10 // transport.LimitedLog's
		lastID = 1 << 40
	)
	var buf proctest.LockedBuffer
	n, err := Start(Config{Workers: 1, Inline: inline.Default(), Fast: true,
		Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	// The node handles one connection's messages in order: the answer
	// to a state request sent last comes after it has handled the rest.
	answered := make(chan struct{}, 1)
	st, err := transport.Listen(transport.Config{Name: "stranger", Logger: slog.New(slog.DiscardHandler)}, func(_ string, tm *transport.Message) {
		if m, err := decodeMessage(tm); err == nil {
			if r, ok := m.(*statsReply); ok && r.ID == lastID {
				answered <- struct{}{}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	send := func(tm *transport.Message) {
		t.Helper()
		if err := st.SendSync(n.TransportAddr(), tm); err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	for i := range rounds {
		for typ := msgStealRequest; int(typ-msgStealRequest) <= len(vocabulary); typ++ {
			send(&transport.Message{Type: typ, Body: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02}})
		}
		send(encodeMessage(&drained{Err: "x"}))
		send(encodeMessage(&statsReply{ID: uint64(i), Snapshots: []byte("not json")}))
		send(encodeMessage(&jobStart{Job: uint64(1<<20 + i), Tasks: []string{"no.such.task"}}))
		send(encodeMessage(&jobStart{Job: uint64(1<<21 + i)}))
		send(encodeMessage(&jobRefused{Job: uint64(i), Reason: "x"}))
	}
	send(encodeMessage(&statsRequest{ID: lastID}))
	select {
	case <-answered:
	case <-time.After(30 * time.Second):
		t.Fatalf("no answer to the state request sent after the flood\n%s", buf.String())
	}
	elapsed := time.Since(began)
	limit := burst + int(elapsed/time.Second) + 1
	kinds := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^time=\S+ level=(?:WARN|INFO) msg=("(?:[^"\\]|\\.)*"|\S+)`).FindAllStringSubmatch(buf.String(), -1) {
		kinds[m[1]]++
	}
	for _, k := range []string{`"dropping a message that does not decode"`, `"an answer to a drain request this node did not make"`, `"a peer's state does not decode"`} {
		if kinds[k] < burst {
			t.Errorf("the flood logged %d lines of %s, want at least the burst, %d (is the flood reaching it?)", kinds[k], k, burst)
		}
	}
	for k, c := range kinds {
		if c > limit {
			t.Errorf("%d lines of %s in %v, want at most %d", c, k, elapsed.Round(time.Millisecond), limit)
		}
	}
	if t.Failed() {
		t.Logf("the node's log:\n%s", buf.String())
	}
}

// TestTransportLinesNameTheNodeOnce: a line of the node's transport (a
// stranger's garbage refused) says node= once, not once for the node's
// logger and again for the transport's.
func TestTransportLinesNameTheNodeOnce(t *testing.T) {
	var buf proctest.LockedBuffer
	n, err := Start(Config{Workers: 1, Inline: inline.Default(), Fast: true,
		Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	nc, err := net.Dial("tcp", n.TransportAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
	line := ""
	waitUntil(t, "the garbage refused in the log", func() bool {
		for _, l := range strings.Split(buf.String(), "\n") {
			if strings.Contains(l, "transport: refused connection") {
				line = l
				return true
			}
		}
		return false
	})
	if c := strings.Count(line, " node="); c != 1 {
		t.Fatalf("the transport's line names the node %d times: %s", c, line)
	}
}
