package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
	"github.com/tsys-go/tsys/tsys"
)

// gatedFan forks n gated tasks and sums their results: its worker runs
// the last one inline, held at the gate, while the others wait in its
// deque, lendable.
var gatedFan = tsys.Register("cluster.test.gatedfan", func(c *tsys.Ctx, n int64) int64 {
	fs := make([]tsys.Forked[int64], n)
	for i := range fs {
		fs[i] = gated.Fork(c, int64(i))
	}
	s := int64(0)
	for i := n - 1; i >= 0; i-- {
		s += fs[i].Join(c)
	}
	return s
})

// TestLifelineWaitsForWork: over real TCP, a node with nothing to lend
// refuses a plain request for work, but holds a lifeline (a request with
// Lifeline set) for as long as it takes, and sends its asker tasks from
// its next push; the asker's results complete the job. The asker is a
// bare transport.
func TestLifelineWaitsForWork(t *testing.T) {
	gate.shut()
	defer gate.open()
	node := testNode(t, Config{Policy: func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy {
		return fishing.New(self, zone, fishing.Params{Lifelines: 1})
	}})
	thief := newBarePeer(t, "thief")
	job, err := node.BeginJob(JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer node.EndJob(job)
	thief.send(node, &stealRequest{Job: job.ID, ID: 1, Want: 8, ReplyTo: thief.addr()})
	// At once, or held for a push until DeferFor ends (ID 0): a node
	// with a job and no run can be told from one at work only by its
	// pushes.
	if r := await[*stealReply](thief, "a plain request"); (r.ID != 1 && r.ID != 0) || len(r.Tasks) != 0 {
		t.Fatalf("a plain request to a node with nothing: %+v, want a refusal", r)
	}
	thief.send(node, &stealRequest{Job: job.ID, ID: 2, Want: 8, ReplyTo: thief.addr(), Lifeline: true})
	// Messages are handled in order: a stats request sent after the
	// lifeline is answered after it, and nothing answered the lifeline.
	thief.send(node, &statsRequest{ID: 3, ReplyTo: thief.addr()})
	if m, ok := thief.next("a stats request").(*statsReply); !ok || m.ID != 3 {
		t.Fatalf("after a lifeline and a stats request: %+v, want the stats reply alone", m)
	}
	// Ten times longer than a plain request is held, it still is.
	time.Sleep(10 * fishing.DefaultDeferFor)
	thief.send(node, &statsRequest{ID: 4, ReplyTo: thief.addr()})
	if m, ok := thief.next("a stats request").(*statsReply); !ok || m.ID != 4 {
		t.Fatalf("%v after the lifeline: %+v, want the stats reply alone", 10*fishing.DefaultDeferFor, m)
	}
	const n = 6
	done := make(chan int64, 1)
	go func() {
		v, _, err := tsys.Run(context.Background(), (*tsys.Runtime)(node.Runtime()), gatedFan, int64(n))
		if err != nil {
			t.Error(err)
		}
		done <- v
	}()
	push := await[*stealReply](thief, "a lifeline")
	if push.ID != 0 || len(push.Tasks) == 0 {
		t.Fatalf("the lifeline's answer: %+v, want tasks, pushed (ID 0)", push)
	}
	for _, r := range push.Tasks {
		if r.Kind != gatedKind {
			t.Fatalf("a task %q pushed, want %q", r.Kind, gatedKind)
		}
		thief.send(node, &result{Job: job.ID, Task: r.ID, Value: encodeInt64(2 * decodeInt64(r.Arg))})
	}
	gate.open()
	if v := <-done; v != n*(n-1) {
		t.Fatalf("the job's sum %d, want %d", v, n*(n-1))
	}
	if e := node.jobs.of(job.ID); e == nil || e.counters().TasksSent != int64(len(push.Tasks)) {
		t.Fatalf("tasks sent: %+v, want the %d pushed", e.counters(), len(push.Tasks))
	}
}
