package cluster

import (
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/proctest"
)

// TestEndJobDoesNotWaitForANodeGossipHasDead: a node the job counts on
// and gossip has dead (an invitation raced its death, or it was cut off
// as the job ended) is not waited for: EndJob ends without its report,
// though reportWait is an hour and the node's address still takes the
// job's end.
func TestEndJobDoesNotWaitForANodeGossipHasDead(t *testing.T) {
	defer func(w time.Duration) { reportWait = w }(reportWait)
	reportWait = time.Hour
	root := testNode(t, Config{})
	ghost := newBarePeer(t, "ghost")
	job, err := root.BeginJob(JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root.peers.left("ghost") // gossip's word
	job.e.mu.Lock()
	job.peers[clusterpolicy.NodeID("ghost")] = ghost.addr()
	job.e.mu.Unlock()
	done := make(chan []NodeReport, 1)
	go func() { done <- root.EndJob(job) }()
	select {
	case reports := <-done:
		for _, r := range reports {
			if r.Node == "ghost" {
				t.Fatalf("a report from a node that sent none: %+v", r)
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("EndJob still waits, after 30 s, for the report of a node gossip has dead")
	}
	if _, ok := ghost.next("the job's end").(*jobEnd); !ok {
		t.Fatal("the node gossip has dead was not sent the job's end: the test does not test the wait")
	}
}

// TestEndJobDoesNotWaitOnTheLineToANodeGossipHasDead: the job's end to a
// node gossip has dead is sent without waiting for it to be written: a
// node cut off answers no handshake (here, a listener that accepts and
// says nothing), and EndJob returned only when the handshake gave up (10
// s later, "peer missed the end of the job") before.
func TestEndJobDoesNotWaitOnTheLineToANodeGossipHasDead(t *testing.T) {
	defer func(w time.Duration) { reportWait = w }(reportWait)
	reportWait = time.Hour
	var logs proctest.LockedBuffer
	root, err := Start(Config{Workers: 1, Inline: inline.Default(), Fast: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var closed atomic.Bool
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(io.Discard, c)
				closed.Store(true)
			}()
		}
	}()
	job, err := root.BeginJob(JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root.peers.left("ghost")
	job.e.mu.Lock()
	job.peers[clusterpolicy.NodeID("ghost")] = silent.Addr().String()
	job.e.mu.Unlock()
	done := make(chan struct{})
	go func() { root.EndJob(job); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("EndJob still waits after 30 s")
	}
	if strings.Contains(logs.String(), "peer missed the end of the job") || closed.Load() {
		t.Fatalf("EndJob waited for the handshake with a node gossip has dead to give up:\n%s", logs.String())
	}
}
