package cluster

import (
	"context"
	"encoding/binary"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
	"github.com/tsys-go/tsys/internal/net/membership"
	"github.com/tsys-go/tsys/internal/net/transport"
	"github.com/tsys-go/tsys/tsys"
)

// barePeer is a transport on real TCP that plays another node, or
// another build of one: the messages a node sends it arrive on replies,
// decoded, but for jobPresence (a node's word that it takes part in a
// job, never a reply), which arrives on presences when there is room.
type barePeer struct {
	t         *testing.T
	tr        *transport.Transport
	replies   chan message
	presences chan *jobPresence
}

func newBarePeer(t *testing.T, name string) *barePeer {
	t.Helper()
	p := &barePeer{t: t, replies: make(chan message, 16), presences: make(chan *jobPresence, 16)}
	tr, err := transport.Listen(transport.Config{Name: name, Logger: slog.New(slog.DiscardHandler)},
		func(from string, tm *transport.Message) {
			m, err := decodeMessage(tm)
			if err != nil {
				t.Errorf("the node sent a message that does not decode: %v", err)
				return
			}
			if jp, ok := m.(*jobPresence); ok {
				select {
				case p.presences <- jp:
				default:
				}
				return
			}
			p.replies <- m
		})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	p.tr = tr
	return p
}

func (p *barePeer) addr() string { return p.tr.Addr() }

// send sends m to node and waits until it is written.
func (p *barePeer) send(node *Node, m message) {
	p.t.Helper()
	if err := p.tr.SendSync(node.TransportAddr(), encodeMessage(m)); err != nil {
		p.t.Fatal(err)
	}
}

// next is the next message a node sent p, an answer to what.
func (p *barePeer) next(what string) message {
	p.t.Helper()
	select {
	case m := <-p.replies:
		return m
	case <-time.After(5 * time.Second):
		p.t.Fatalf("no answer to %s", what)
		return nil
	}
}

// testNode starts a node of one worker with loopback timing and no logs,
// closed when the test ends.
func testNode(t testing.TB, cfg Config) *Node {
	t.Helper()
	cfg.Workers, cfg.Inline, cfg.Fast, cfg.Logger = 1, inline.Default(), true, slog.New(slog.DiscardHandler)
	n, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// waitUntil polls cond until it holds, failing the test with what after
// 10 s.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("still not so after 10 s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestUnknownTaskIsSentBack: a peer that lends a task of a kind this node
// does not know (another binary) gets the task back to run itself, with a
// reason, and this node keeps running. The peer is a bare transport on
// real TCP, playing a node of another build.
func TestUnknownTaskIsSentBack(t *testing.T) {
	node := testNode(t, Config{Policy: nil}) // local: moves no work
	peer := newBarePeer(t, "other-build")
	const job = 77
	peer.send(node, &jobStart{Job: job, ReplyTo: peer.addr()})
	lend := &stealReply{Job: job, ID: 1, Tasks: []taskRecord{
		{ID: 41, Kind: "no.such.task", Arg: []byte{1, 2, 3}},
	}}
	peer.send(node, lend)
	m := peer.next("a task of an unknown kind")
	if r, ok := m.(*result); !ok || r.Task != 41 || !r.Rerun || !strings.Contains(r.Err, `no task named "no.such.task"`) {
		t.Fatalf("reply %+v: want a rerun result for task 41 naming the unknown task", m)
	}
	// Still serving: a steal request gets an answer (a refusal: no work).
	peer.send(node, &stealRequest{Job: job, ID: 9, Want: 1, ReplyTo: peer.addr()})
	m = peer.next("a steal request after the unknown task")
	if r, ok := m.(*stealReply); !ok || r.ID != 9 || len(r.Tasks) != 0 {
		t.Fatalf("reply %+v: want an empty stealReply", m)
	}
}

// doubleKind is double's name, as a task record names its kind.
const doubleKind = "cluster.test.double"

var double = tsys.Register(doubleKind, func(_ *tsys.Ctx, x int64) int64 { return 2 * x })

// TestResultOfAPushFromAStranger: tasks pushed by a node this node has not
// heard of through gossip (a balancing scheduler pushes unasked) come back
// as results to the address the push carried, rather than being dropped.
func TestResultOfAPushFromAStranger(t *testing.T) {
	node := testNode(t, Config{})
	peer := newBarePeer(t, "stranger")
	const job = 5
	// The job starts from another node; the stranger only pushes.
	peer.send(node, &jobStart{Job: job})
	if double.WhyLocal() != nil {
		t.Fatal("the test task cannot cross nodes")
	}
	push := &stealReply{Job: job, Tasks: []taskRecord{{ID: 8, Kind: doubleKind, Arg: encodeInt64(21)}}, ReplyTo: peer.addr()}
	peer.send(node, push)
	m := peer.next("a pushed task")
	if r, ok := m.(*result); !ok || r.Task != 8 || r.Err != "" || decodeInt64(r.Value) != 42 {
		t.Fatalf("reply %+v: want the result of task 8, 42", m)
	}
}

func encodeInt64(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }

func decodeInt64(b []byte) int64 {
	if len(b) != 8 {
		return -1
	}
	return int64(binary.LittleEndian.Uint64(b))
}

// TestRootDoesNotDrain: the root of a running job refuses to drain, saying
// why, and stays in the cluster; once the job has ended it drains and
// leaves.
func TestRootDoesNotDrain(t *testing.T) {
	node := testNode(t, Config{})
	job, err := node.BeginJob(JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.Drain(context.Background()); err == nil || !strings.Contains(err.Error(), "root of a running job") {
		t.Fatalf("a root drained mid-job: %v", err)
	}
	if node.Draining() {
		t.Error("the root started draining")
	}
	node.EndJob(job)
	if _, err := node.Drain(context.Background()); err != nil {
		t.Fatalf("drain after the job: %v", err)
	}
}

// TestClientServesNoOtherJob: a client (tsys run) that another root
// invites, as roots invite every node that joins during their job, says
// it will not serve and can still begin its own job. The other root is a
// bare transport on real TCP.
func TestClientServesNoOtherJob(t *testing.T) {
	node := testNode(t, Config{Client: true})
	root := newBarePeer(t, "other-root")
	const job = 91
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	m := root.next("an invitation to a client")
	if r, ok := m.(*jobRefused); !ok || r.Job != job || !strings.Contains(r.Reason, "client") {
		t.Fatalf("reply %+v: want a refusal of job %d saying the node is a client", m, job)
	}
	// Not ended: EndJob would wait for a report from the bare transport,
	// which BeginJob invited as a peer it had heard from.
	if _, err := node.BeginJob(JobOptions{}); err != nil {
		t.Fatalf("the client cannot begin its own job after an invitation: %v", err)
	}
}

// TestNodeLackingTheJobsTasksRefuses: a node whose binary has not
// registered a task the job's root lists refuses the job at once, naming
// the tasks it lacks and both binaries; one that has them all serves it.
func TestNodeLackingTheJobsTasksRefuses(t *testing.T) {
	node := testNode(t, Config{})
	root := newBarePeer(t, "other-binary")
	const job = 92
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr(), Tasks: []string{doubleKind, "sort.merge", "sort.split"}, Binary: "sorter (example.com/sorter)"})
	m := root.next("a job whose tasks the node lacks")
	r, ok := m.(*jobRefused)
	if !ok || r.Job != job || !slices.Equal(r.Lacks, []string{"sort.merge", "sort.split"}) {
		t.Fatalf("reply %+v: want a refusal of job %d listing sort.merge and sort.split", m, job)
	}
	for _, want := range []string{"has no task sort.merge, sort.split that may cross nodes", "sorter (example.com/sorter)", "start every node from the job's program's own binary"} {
		if !strings.Contains(r.Reason, want) {
			t.Errorf("reason %q does not say %q", r.Reason, want)
		}
	}
	if node.jobs.of(job) != nil {
		t.Error("the node serves a job it refused")
	}
	root.send(node, printedStart(job+1, root.addr()))
	waitUntil(t, "the node serves a job whose tasks it has", func() bool { return node.jobs.of(job+1) != nil })
}

// memberPolicy moves no work and records the members it hears of.
type memberPolicy struct {
	noPolicy
	mu    sync.Mutex
	heard map[clusterpolicy.NodeID]bool
}

func (p *memberPolicy) Membership(_ time.Time, ev clusterpolicy.MemberEvent) []clusterpolicy.Action {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Joined {
		p.heard[ev.Node] = true
	}
	return nil
}

func (p *memberPolicy) heardOf(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.heard[clusterpolicy.NodeID(id)]
}

// TestPoliciesDoNotHearOtherJobsClients: a client (tsys run) serves no job
// but its own, so the policies of a job it does not root are not told of
// it, on the serving node nor on the root: they would fish from it, or
// push to it, for nothing. The job's own root is heard. Three nodes with
// real gossip and transport on loopback, in this process.
func TestPoliciesDoNotHearOtherJobsClients(t *testing.T) {
	var mu sync.Mutex
	policies := map[string][]*memberPolicy{}
	start := func(client bool, join []string) *Node {
		return testNode(t, Config{Client: client, Join: join, Policy: func(id clusterpolicy.NodeID, _ string) clusterpolicy.Policy {
			p := &memberPolicy{heard: map[clusterpolicy.NodeID]bool{}}
			mu.Lock()
			policies[string(id)] = append(policies[string(id)], p)
			mu.Unlock()
			return p
		}})
	}
	server := start(false, nil)
	root := start(true, []string{server.GossipAddr()})
	other := start(true, []string{server.GossipAddr()})
	knows := func(n, m *Node) bool {
		meta, ok := n.peers.meta(clusterpolicy.NodeID(m.Name()))
		return ok && meta.Client
	}
	waitUntil(t, "the nodes learn of each other", func() bool {
		return knows(server, root) && knows(server, other) && knows(root, other)
	})
	job, err := root.BeginJob(JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the server serves the job", func() bool { return server.jobs.of(job.ID) != nil })
	root.EndJob(job)
	mu.Lock()
	defer mu.Unlock()
	for _, c := range []struct {
		node  *Node
		hears string
	}{{server, root.Name()}, {root, server.Name()}} {
		ps := policies[c.node.Name()]
		if len(ps) == 0 {
			t.Fatalf("node %s made no policy for the job", c.node.Name())
		}
		p := ps[len(ps)-1]
		if !p.heardOf(c.hears) {
			t.Errorf("the job's policy on %s was not told of %s", c.node.Name(), c.hears)
		}
		if p.heardOf(other.Name()) {
			t.Errorf("the job's policy on %s was told of %s, a client of no part in the job", c.node.Name(), other.Name())
		}
	}
}

// TestRootHeardFirstOverTCP: a job's start often reaches a node over TCP
// before gossip has told it of the job's root. Gossip's word that the root
// joined, coming after, still makes the root a peer of the job's policy:
// the node's idle worker fishes from it. The root is a bare transport on
// real TCP; its gossip is the event the membership layer would deliver.
func TestRootHeardFirstOverTCP(t *testing.T) {
	node := testNode(t, Config{Policy: func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy {
		return fishing.New(self, zone, fishing.Params{})
	}})
	const job = 11
	root := servedBy(t, node, "root-heard-first-over-tcp", job)
	for deadline := time.Now().Add(10 * time.Second); ; {
		select {
		case m := <-root.replies:
			if r, ok := m.(*stealRequest); ok && r.Job == job {
				return
			}
		case <-time.After(time.Until(deadline)):
			t.Fatal("the node never asked the job's root for work: its policy does not know the root")
		}
	}
}

// TestMemberSeenBeforeTheJobIsNoLateJoiner: a member gossip brought
// before a job began was there at its start, and the report does not
// say it joined during the job, though the invitation its arrival set off
// (inviteLate, on a goroutine of its own) may reach the job before
// BeginJob's own; a member brought after the job began is reported as
// joining it.
func TestMemberSeenBeforeTheJobIsNoLateJoiner(t *testing.T) {
	node := testNode(t, Config{})
	seenBefore := time.Now()
	job, err := node.BeginJob(JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Not ended: EndJob would wait for reports from the bare transports.
	early, late := newBarePeer(t, "early"), newBarePeer(t, "late")
	gossipInbox{node}.inviteLate("early", membership.Meta{Transport: early.addr(), Scheduler: node.schedulerName}, seenBefore)
	gossipInbox{node}.inviteLate("late", membership.Meta{Transport: late.addr(), Scheduler: node.schedulerName}, time.Now())
	for _, p := range []*barePeer{early, late} {
		if m, ok := p.next("an invitation").(*jobStart); !ok || m.Job != job.ID {
			t.Fatalf("%+v: want an invitation to job %x", m, job.ID)
		}
	}
	job.e.mu.Lock()
	_, earlyLate := job.joinedAt["early"]
	_, lateLate := job.joinedAt["late"]
	job.e.mu.Unlock()
	if earlyLate || !lateLate {
		t.Errorf("reported as joining during the job: the member seen before it %v, the one seen after %v; want false, true", earlyLate, lateLate)
	}
}

// servedBy has node serve job for a bare root of that name, over real
// TCP, and then has gossip bring the root, as the membership layer would:
// the order in which a node hears of a root whose job it was invited to.
func servedBy(t *testing.T, node *Node, name string, job uint64) *barePeer {
	t.Helper()
	root := newBarePeer(t, name)
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	waitUntil(t, "the node serves the job", func() bool { return node.jobs.of(job) != nil })
	gossipInbox{node}.onMember(membership.Event{Kind: membership.Joined, Member: membership.Member{
		Name: name, Meta: membership.Meta{Transport: root.addr()},
	}})
	return root
}
