package cluster

import (
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
	"github.com/tsys-go/tsys/tsys"
)

// The names of the test's tasks, as a task record names its kind.
const (
	failingKind  = "cluster.test.fail"
	blockingKind = "cluster.test.block"
	gatedKind    = "cluster.test.gated"
)

var (
	failing = tsys.Register(failingKind, func(c *tsys.Ctx, x int64) int64 {
		c.Fail(errors.New("bad input " + string(rune('0'+x%10))))
		return 0
	})
	// blocking runs until its test lets it go, deaf to its job's end.
	blocking = tsys.Register(blockingKind, func(_ *tsys.Ctx, x int64) int64 {
		release.wait()
		return x
	})
	release gateKeeper
)

// gateKeeper holds tasks until a test lets them go; each test closes a
// gate of its own (-count=2 runs a test twice).
type gateKeeper struct{ ch atomic.Pointer[chan struct{}] }

// shut makes a new gate, for the tasks that start from now on.
func (g *gateKeeper) shut() {
	ch := make(chan struct{})
	g.ch.Store(&ch)
}

func (g *gateKeeper) wait() { <-*g.ch.Load() }

// open lets the gate's tasks go; opening it again does nothing, so that a
// test may open it in its course and again, deferred, if it fails first.
func (g *gateKeeper) open() {
	ch := *g.ch.Load()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// twoWorkerNode is a node of two workers, so that one can be held by a
// blocking task while the other fails.
func twoWorkerNode(t *testing.T) *Node {
	t.Helper()
	n, err := Start(Config{Workers: 2, Inline: inline.Default(), Fast: true, Logger: slog.New(slog.DiscardHandler),
		Policy: func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy {
			return fishing.New(self, zone, fishing.Params{})
		}})
	if err != nil {
		t.Fatal(err)
	}
	release.shut()
	t.Cleanup(func() {
		release.open()
		n.Close()
	})
	return n
}

// await returns the next message of the node of type T, skipping others
// (steal requests of its idle workers, load reports).
func await[T message](p *barePeer, what string) T {
	p.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if m, ok := p.next(what).(T); ok {
			return m
		}
	}
	p.t.Fatalf("no %s", what)
	var zero T
	return zero
}

// TestFailureReachesTheRootAtOnce: a borrowed task that fails on a node
// is reported to the job's root as it fails, while another task of the
// job still runs there (one that never looks at its job's end): the root
// need not wait for the node's running tasks to tell the others to stop.
func TestFailureReachesTheRootAtOnce(t *testing.T) {
	node := twoWorkerNode(t)
	root := newBarePeer(t, "root")
	const job = 93
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	waitUntil(t, "the node serves the job", func() bool { return node.jobs.of(job) != nil })
	root.send(node, &stealReply{Job: job, ReplyTo: root.addr(), Tasks: []taskRecord{
		{ID: 1, Kind: blockingKind, Arg: encodeInt64(1)},
		{ID: 2, Kind: failingKind, Arg: encodeInt64(7)},
	}})
	m := await[*jobFailed](root, "a report of the failure")
	if m.Job != job || !strings.Contains(m.Err, `task "cluster.test.fail": bad input 7`) {
		t.Fatalf("report %+v: want job %d's failure, naming the task and its error", m, job)
	}
}

// TestRootsFailureStopsTheNode: a serving node told by the job's root that
// the job failed stops starting the job's tasks, its run failing with the
// root's word; it does not send the failure back.
func TestRootsFailureStopsTheNode(t *testing.T) {
	node := testNode(t, Config{})
	root := newBarePeer(t, "root")
	const job = 94
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	waitUntil(t, "the node serves the job", func() bool { return node.jobs.of(job) != nil })
	e := node.jobs.of(job)
	root.send(node, &jobFailed{Job: job, Err: "a task failed on the root"})
	waitUntil(t, "the node's run of the job fails", e.pool.Failed)
	// A stranger's word does not fail a job.
	other := newBarePeer(t, "other")
	const job2 = 95
	root.send(node, &jobStart{Job: job2, ReplyTo: root.addr()})
	waitUntil(t, "the node serves the second job", func() bool { return node.jobs.of(job2) != nil })
	other.send(node, &jobFailed{Job: job2, Err: "not yours to fail"})
	root.send(node, &jobFailed{Job: job2 + 1, Err: "no such job"})
	// A peer's messages are handled in the order it sent them: once the
	// node answers a later one of each, it has handled the failures.
	for _, p := range []*barePeer{other, root} {
		p.send(node, &statsRequest{ID: 1, ReplyTo: p.addr()})
		await[*statsReply](p, "a stats request")
	}
	if node.jobs.of(job2).pool.Failed() {
		t.Error("a node that is not the job's root failed it")
	}
}

// TestRootsFailureBeforeTheRunBegins: a root's failure that the node
// handles after the job entered its table but before its run began fails
// that run as it begins; dropped, it left the node starting the failed
// job's tasks until the job's end.
func TestRootsFailureBeforeTheRunBegins(t *testing.T) {
	const job = 97
	entered, release := make(chan struct{}), make(chan struct{})
	hold := func(e *engine) {
		if e.info.ID == job {
			close(entered)
			<-release
		}
	}
	beforeServe.Store(&hold)
	t.Cleanup(func() { beforeServe.Store(nil) })
	node := testNode(t, Config{})
	root := newBarePeer(t, "root")
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the node did not begin to serve the job within 10 s")
	}
	e := node.jobs.of(job)
	root.send(node, &jobFailed{Job: job, Err: "a task failed on the root"})
	// Handled in order: once the node answers, it has handled the failure.
	root.send(node, &statsRequest{ID: 1, ReplyTo: root.addr()})
	await[*statsReply](root, "a stats request")
	close(release)
	waitUntil(t, "the node's run, begun after the root's failure, fails", e.pool.Failed)
}

var (
	gate  gateKeeper // holds cluster.test.gated's tasks
	gated = tsys.Register(gatedKind, func(_ *tsys.Ctx, x int64) int64 {
		gate.wait()
		return 2 * x
	})
)

// forget makes n drop peer from its members, as gossip does for a node it
// declares dead (membership.Left): the peer may be alive, only slow.
func forget(n *Node, peer clusterpolicy.NodeID) {
	n.peers.left(peer)
}

// TestAnswersReachALenderGossipDropped: a lender that gossip dropped
// while a node held its task (it was suspected: a GC pause, a starved
// CPU) still gets the task's result, at the address its loan came from,
// and a task the node refuses goes back there too. Neither is lost for
// want of an address, which left the lender waiting for ever.
func TestAnswersReachALenderGossipDropped(t *testing.T) {
	gate.shut()
	node := testNode(t, Config{})
	lender := newBarePeer(t, "lender")
	const job = 96
	lender.send(node, &jobStart{Job: job, ReplyTo: lender.addr()})
	waitUntil(t, "the node serves the job", func() bool { return node.jobs.of(job) != nil })
	lender.send(node, &stealReply{Job: job, ReplyTo: lender.addr(), Tasks: []taskRecord{{ID: 1, Kind: gatedKind, Arg: encodeInt64(21)}}})
	waitUntil(t, "the node holds the task", func() bool { return borrowing(node, job) })
	forget(node, "lender")
	lender.send(node, &stealReply{Job: job, ReplyTo: lender.addr(), Tasks: []taskRecord{{ID: 2, Kind: "no.such.task"}}})
	if r := await[*result](lender, "a task of an unknown kind"); r.Task != 2 || !r.Rerun {
		t.Errorf("reply %+v: want task 2 sent back to run at home", r)
	}
	gate.open()
	if r := await[*result](lender, "the held task's result"); r.Task != 1 || r.Rerun || decodeInt64(r.Value) != 42 {
		t.Errorf("reply %+v: want task 1's result, 42", r)
	}
}
