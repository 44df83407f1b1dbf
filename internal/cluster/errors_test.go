package cluster

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tsys-go/tsys/tsys"
)

// TestAFailureElsewhereIsATsysErrRemote: a job's root whose run another
// node's word fails (a task failed there) returns, from tsys.Run, a
// *tsys.ErrRemote naming that node: the error a program gets is tsys's
// type, not the scheduler's.
func TestAFailureElsewhereIsATsysErrRemote(t *testing.T) {
	node := testNode(t, Config{})
	job, err := node.BeginJob(JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer node.EndJob(job)
	peer := newBarePeer(t, "elsewhere")
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, _, err := tsys.Do(context.Background(), (*tsys.Runtime)(node.Runtime()), func(c *tsys.Ctx) int {
			close(started)
			select { // bounded: a regression fails instead of hanging
			case <-c.Context().Done():
			case <-time.After(30 * time.Second):
			}
			return 0
		})
		done <- err
	}()
	<-started
	peer.send(node, &jobFailed{Job: job.ID, Err: `task "x" panicked: boom`})
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the root's run did not end with the other node's failure")
	}
	var er *tsys.ErrRemote
	if !errors.As(err, &er) || er.Node != "elsewhere" || er.Err != `task "x" panicked: boom` {
		t.Fatalf("err = %v, want a *tsys.ErrRemote from node elsewhere", err)
	}
	if got := fmt.Sprintf("%T", err); got != "*tsys.ErrRemote" {
		t.Errorf("%%T = %s, want *tsys.ErrRemote", got)
	}
}
