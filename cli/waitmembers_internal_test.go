package cli

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
)

// TestWaitMembersKeepsJoinTimeout: the wait for the nodes a run needs is
// bounded by --join-timeout, like the join itself, and the message names
// the flag, so a run told --join-timeout 3s does not wait 30.
func TestWaitMembersKeepsJoinTimeout(t *testing.T) {
	node, err := cluster.Start(cluster.Config{Bind: "127.0.0.1:0", Workers: 1, Fast: true, Client: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	// Alone, the node waits for a second one that never comes; the test's
	// context is only a backstop that the wait must not reach.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err = waitMembers(ctx, node, 2, nil, 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 nodes joined within 200ms (--join-timeout)") {
		t.Fatalf("a lone node waiting for 2 with --join-timeout 200ms: %v; want the flag's bound named", err)
	}
}

// TestAllLoopbackTakesPortlessSeeds: a seed without a port is judged by
// its host like any other, so --join 127.0.0.1 gets loopback timing.
func TestAllLoopbackTakesPortlessSeeds(t *testing.T) {
	for seeds, want := range map[string]bool{
		"127.0.0.1":                true,
		"127.0.0.1,localhost:7946": true,
		"[::1]":                    true,
		"::1":                      true,
		"10.0.0.1":                 false,
		"127.0.0.1,10.0.0.1:7946":  false,
	} {
		if got := allLoopback(strings.Split(seeds, ",")); got != want {
			t.Errorf("allLoopback(%s) = %v, want %v", seeds, got, want)
		}
	}
}
