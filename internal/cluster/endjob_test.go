package cluster

import (
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
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
