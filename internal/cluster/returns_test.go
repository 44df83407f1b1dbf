package cluster

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
	"github.com/tsys-go/tsys/internal/proctest"
	"github.com/tsys-go/tsys/internal/returns"
)

// TestResultsGoTogether: over real TCP, the results of a batch of tasks
// lent in one answer go home in one results message once the last is
// done, in the order the tasks ran, each saying what a result says.
func TestResultsGoTogether(t *testing.T) {
	gate.shut()
	defer gate.open()
	const job = 81
	_, node, root := servingOnAHandClock(t, job, func(c *Config) { c.returns.Hold = time.Hour })
	root.send(node, &stealReply{Job: job, ReplyTo: root.addr(), Tasks: []taskRecord{
		{ID: 1, Kind: gatedKind, Arg: encodeInt64(1)},
		{ID: 2, Kind: gatedKind, Arg: encodeInt64(2)},
		{ID: 3, Kind: gatedKind, Arg: encodeInt64(3)},
	}})
	waitUntil(t, "the node's worker is at work", func() bool { return node.jobs.of(job).pool.Port().Load().AtWork() })
	gate.open()
	m, ok := root.next("the batch's results").(*results)
	if !ok || m.Job != job || len(m.Results) != 3 {
		t.Fatalf("after a batch of 3 tasks: %+v, want one results message of 3", m)
	}
	for i, r := range m.Results {
		if r.Job != job || r.Task != uint64(i+1) || decodeInt64(r.Value) != 2*int64(i+1) || r.Err != "" || r.Rerun {
			t.Fatalf("result %d: %+v, want task %d's %d", i, r, i+1, 2*(i+1))
		}
	}
	// Held until on their way, so gone just after.
	waitUntil(t, "the loans go from the book", func() bool { return node.jobs.of(job).borrowed.len() == 0 })
}

// TestIdleWorkerSendsHeldResults: a result held for a task of the same
// lender that is still running goes once a worker has nothing to do, not
// when that task ends: on a node of two workers, a quick task's result
// comes home alone while the other task of its batch is held at a gate.
func TestIdleWorkerSendsHeldResults(t *testing.T) {
	gate.shut()
	defer gate.open()
	const job = 82
	// Held for an hour otherwise: only the idle worker sends it.
	node, err := Start(Config{Workers: 2, Inline: inline.Default(), Fast: true, Logger: slog.New(slog.DiscardHandler), returns: returns.Params{Hold: time.Hour},
		Policy: func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy {
			return fishing.New(self, zone, fishing.Params{})
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gate.open(); node.Close() })
	root := newBarePeer(t, "root")
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	waitUntil(t, "the node serves the job", func() bool { return node.jobs.of(job) != nil })
	root.send(node, &stealReply{Job: job, ReplyTo: root.addr(), Tasks: []taskRecord{
		{ID: 1, Kind: gatedKind, Arg: encodeInt64(5)},
		{ID: 2, Kind: doubleKind, Arg: encodeInt64(7)},
	}})
	if r := await[*result](root, "the quick task's result"); r.Task != 2 || decodeInt64(r.Value) != 14 {
		t.Fatalf("result %+v, want task 2's 14", r)
	}
	gate.open()
	if r := await[*result](root, "the gated task's result"); r.Task != 1 || decodeInt64(r.Value) != 10 {
		t.Fatalf("result %+v, want task 1's 10", r)
	}
}

// TestHeldResultGoesWhenDue: a result held behind another task of its
// lender that runs on and on goes when its hold is over, by the book's
// timer: on a node of one worker, a quick task's result comes home while
// the worker is held at a gate by the other task of its batch.
func TestHeldResultGoesWhenDue(t *testing.T) {
	gate.shut()
	defer gate.open()
	const job = 83
	_, node, root := servingOnAHandClock(t, job, func(c *Config) { c.returns.Hold = 20 * time.Millisecond })
	root.send(node, &stealReply{Job: job, ReplyTo: root.addr(), Tasks: []taskRecord{
		{ID: 1, Kind: doubleKind, Arg: encodeInt64(4)},
		{ID: 2, Kind: gatedKind, Arg: encodeInt64(6)},
	}})
	if r := await[*result](root, "the quick task's result"); r.Task != 1 || decodeInt64(r.Value) != 8 {
		t.Fatalf("result %+v, want task 1's 8", r)
	}
	gate.open()
	if r := await[*result](root, "the gated task's result"); r.Task != 2 || decodeInt64(r.Value) != 12 {
		t.Fatalf("result %+v, want task 2's 12", r)
	}
}

// TestResultsOfAnEndedJobLogOnce: a results message for a job the node
// does not serve (over here, or never was: a stranger's) costs one line,
// however many results it says it carries.
func TestResultsOfAnEndedJobLogOnce(t *testing.T) {
	var buf proctest.LockedBuffer
	n, err := Start(Config{Workers: 1, Inline: inline.Default(), Fast: true,
		Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	inbox{n}.onResults("stranger", &results{Job: 1 << 40, Results: make([]result, 100)})
	if lines := strings.Count(buf.String(), "job that is over here"); lines != 1 {
		t.Errorf("a results message of 100 for no job here logged %d lines, want 1:\n%s", lines, buf.String())
	}
}
