package cluster

import (
	"slices"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/net/membership"
	"github.com/tsys-go/tsys/internal/sched"
)

// declareDead tells n what gossip tells a node when it declares peer dead.
func declareDead(n *Node, peer string) {
	gossipInbox{n}.onMember(membership.Event{Kind: membership.Left, Failed: true, Member: membership.Member{Name: peer}})
}

// comesBack tells n what gossip tells a node when peer, declared dead,
// refutes it: it is a member again, at its transport address.
func comesBack(n *Node, peer, transport string) {
	gossipInbox{n}.onMember(membership.Event{Kind: membership.Joined, Member: membership.Member{Name: peer, Meta: membership.Meta{Transport: transport}}})
}

// TestSuspectedRootKeepsItsJob: a node whose job's root gossip declares
// dead serves on; the task it holds completes and its result reaches the
// root, which was only slow; and the root's return makes the job whole
// again, where it was dropped, throwing the borrowed work away.
func TestSuspectedRootKeepsItsJob(t *testing.T) {
	gate.shut()
	node := testNode(t, Config{})
	root := newBarePeer(t, "root")
	const job = 97
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	waitUntil(t, "the node serves the job", func() bool { return node.jobs.of(job) != nil })
	root.send(node, &stealReply{Job: job, ReplyTo: root.addr(), Tasks: []taskRecord{{ID: 1, Kind: gatedKind, Arg: encodeInt64(4)}}})
	waitUntil(t, "the node holds the task", func() bool { return borrowing(node, job) })
	declareDead(node, "root")
	if node.jobs.of(job) == nil {
		t.Fatal("the node dropped the job as soon as gossip declared its root dead")
	}
	gate.open()
	if r := await[*result](root, "the held task's result"); r.Task != 1 || r.Rerun || decodeInt64(r.Value) != 8 {
		t.Errorf("reply %+v: want task 1's result, 8", r)
	}
	comesBack(node, "root", root.addr())
	e := node.jobs.of(job)
	if e.rootWatch.isOrphaned() {
		t.Error("the root came back, and the node still counts its job orphaned")
	}
}

// TestOrphanedJobHandsBackAndAsks: a node whose job's root stays gone for
// RootGrace drops the job, handing the task it held back to its lender
// rather than throwing it away; when the root comes back, the node asks
// whether the job still runs, and a root that still runs it invites it
// again.
func TestOrphanedJobHandsBackAndAsks(t *testing.T) {
	gate.shut()
	defer gate.open()
	node := testNode(t, Config{RootGrace: checkEvery})
	root := newBarePeer(t, "root")
	const job = 98
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	waitUntil(t, "the node serves the job", func() bool { return node.jobs.of(job) != nil })
	root.send(node, &stealReply{Job: job, ReplyTo: root.addr(), Tasks: []taskRecord{{ID: 3, Kind: gatedKind, Arg: encodeInt64(5)}}})
	waitUntil(t, "the node holds the task", func() bool { return borrowing(node, job) })
	declareDead(node, "root")
	if r := await[*result](root, "the task handed back"); r.Task != 3 || !r.Rerun || !r.Leaving {
		t.Errorf("reply %+v: want task 3 handed back", r)
	}
	waitUntil(t, "the node drops the job", func() bool { return node.jobs.of(job) == nil })
	comesBack(node, "root", root.addr())
	if m := await[*jobAsk](root, "the root's return"); m.Job != job || m.ReplyTo != node.TransportAddr() {
		t.Errorf("ask %+v: want job %d, answers at %s", m, job, node.TransportAddr())
	}
}

// TestBorrowerSaysWhichLoansItHolds: asked about its loans, a node says
// it holds the one it runs and not one it never had, nor one of a job it
// does not serve: the lender runs those again at once.
func TestBorrowerSaysWhichLoansItHolds(t *testing.T) {
	gate.shut()
	defer gate.open()
	node := testNode(t, Config{})
	lender := newBarePeer(t, "lender")
	const job = 99
	lender.send(node, &jobStart{Job: job, ReplyTo: lender.addr()})
	waitUntil(t, "the node serves the job", func() bool { return node.jobs.of(job) != nil })
	lender.send(node, &stealReply{Job: job, ReplyTo: lender.addr(), Tasks: []taskRecord{{ID: 5, Kind: gatedKind, Arg: encodeInt64(1)}}})
	waitUntil(t, "the node holds the task", func() bool { return borrowing(node, job) })
	lender.send(node, &loanQuery{Job: job, IDs: []uint64{5, 6}, ReplyTo: lender.addr()})
	if st := await[*loanStatus](lender, "a loan query"); !slices.Equal(st.Held, []uint64{5}) || !slices.Equal(st.Gone, []uint64{6}) {
		t.Errorf("status %+v: want 5 held, 6 gone", st)
	}
	lender.send(node, &loanQuery{Job: job + 1, IDs: []uint64{5}, ReplyTo: lender.addr()})
	if st := await[*loanStatus](lender, "a query about another job"); len(st.Held) != 0 || !slices.Equal(st.Gone, []uint64{5}) {
		t.Errorf("status %+v: want 5 gone", st)
	}
}

// TestLateResultIsCountedOnce: a result that comes after its loan was run
// again here is dropped and counted, and a second copy of it is not
// counted again.
func TestLateResultIsCountedOnce(t *testing.T) {
	e := &engine{n: testNode(t, Config{})}
	e.pool = e.n.jobs.main.Main()
	e.lender = newLender(e)
	e.lender.ledger.lend(1, new(sched.Header), "b", "", time.Now())
	e.lender.ledger.rerunAll([]uint64{1})
	e.lender.resultArrived("b", &result{Task: 1})
	e.lender.resultArrived("b", &result{Task: 1})
	if got := e.counters().LateResults; got != 1 {
		t.Errorf("%d late results counted, want 1", got)
	}
}

// TestJobStoppingKeepsItsRuntime: while a job served here stops (its
// end came, a task of it still runs), a job that arrives meanwhile gets a
// runtime of its own, not the stopping one's: the stopping run would
// clear the tasks the new job borrowed, and their lender wait for ever.
func TestJobStoppingKeepsItsRuntime(t *testing.T) {
	gate.shut()
	node := testNode(t, Config{})
	first, second := newBarePeer(t, "first"), newBarePeer(t, "second")
	const jobA, jobB = 101, 102
	first.send(node, &jobStart{Job: jobA, ReplyTo: first.addr()})
	waitUntil(t, "the node serves the first job", func() bool { return node.jobs.of(jobA) != nil })
	a := node.jobs.of(jobA)
	first.send(node, &stealReply{Job: jobA, ReplyTo: first.addr(), Tasks: []taskRecord{{ID: 1, Kind: gatedKind, Arg: encodeInt64(1)}}})
	waitUntil(t, "the node holds the first job's task", func() bool { return borrowing(node, jobA) })
	first.send(node, &jobEnd{Job: jobA})
	waitUntil(t, "the first job is stopping", func() bool { return node.jobs.of(jobA) == nil })
	second.send(node, &jobStart{Job: jobB, ReplyTo: second.addr()})
	waitUntil(t, "the node serves the second job", func() bool { return node.jobs.of(jobB) != nil })
	if node.jobs.of(jobB).rt == a.rt {
		gate.open() // so that the node can close
		t.Fatal("the second job was given the runtime of the job still stopping")
	}
	second.send(node, &stealReply{Job: jobB, ReplyTo: second.addr(), Tasks: []taskRecord{{ID: 2, Kind: doubleKind, Arg: encodeInt64(21)}}})
	gate.open()
	if r := await[*result](second, "the second job's task"); r.Task != 2 || decodeInt64(r.Value) != 42 {
		t.Errorf("reply %+v: want task 2's result, 42", r)
	}
	if r := await[*jobReport](first, "the first job's end"); r.Job != jobA {
		t.Errorf("report %+v: want the first job's", r)
	}
}
