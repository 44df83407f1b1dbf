package cluster

import (
	"context"
	"encoding/binary"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/net/transport"
	"github.com/tsys-go/tsys/sched"
	"github.com/tsys-go/tsys/tsys"
)

// TestUnknownTaskIsSentBack: a peer that lends a task of a kind this node
// does not know (another binary) gets the task back to run itself, with a
// reason, and this node keeps running. The peer is a bare transport on
// real TCP, playing a node of another build.
func TestUnknownTaskIsSentBack(t *testing.T) {
	node, err := Start(Config{
		Workers: 1, Inline: inline.Default(), Fast: true, Logger: slog.New(slog.DiscardHandler),
		Policy: nil, // local: moves no work
	})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()

	replies := make(chan message, 4)
	peer, err := transport.Listen(transport.Config{Name: "other-build", Logger: slog.New(slog.DiscardHandler)},
		func(from string, tm *transport.Message) {
			m, err := decodeMessage(tm)
			if err != nil {
				t.Errorf("the node sent a message that does not decode: %v", err)
				return
			}
			if _, ok := m.(*jobPresence); !ok { // it takes part in the job: not a reply
				replies <- m
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()

	const job = 77
	if err := peer.SendSync(node.TransportAddr(), encodeMessage(&jobStart{Job: job, ReplyTo: peer.Addr()})); err != nil {
		t.Fatal(err)
	}
	lend := &stealReply{Job: job, ID: 1, Tasks: []taskRecord{
		{ID: 41, Kind: "no.such.task", Arg: []byte{1, 2, 3}},
	}}
	if err := peer.SendSync(node.TransportAddr(), encodeMessage(lend)); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-replies:
		if r, ok := m.(*result); !ok || r.Task != 41 || !r.Rerun || !strings.Contains(r.Err, `no task named "no.such.task"`) {
			t.Fatalf("reply %+v: want a rerun result for task 41 naming the unknown task", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer to a task of an unknown kind")
	}
	// Still serving: a steal request gets an answer (a refusal: no work).
	if err := peer.SendSync(node.TransportAddr(), encodeMessage(&stealRequest{Job: job, ID: 9, Want: 1, ReplyTo: peer.Addr()})); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-replies:
		if r, ok := m.(*stealReply); !ok || r.ID != 9 || len(r.Tasks) != 0 {
			t.Fatalf("reply %+v: want an empty stealReply", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the node stopped answering after the unknown task")
	}
}

var double = tsys.Register("cluster.test.double", func(_ *tsys.Ctx, x int64) int64 { return 2 * x })

// TestResultOfAPushFromAStranger: tasks pushed by a node this node has not
// heard of through gossip (a balancing scheduler pushes unasked) come back
// as results to the address the push carried, rather than being dropped.
func TestResultOfAPushFromAStranger(t *testing.T) {
	node, err := Start(Config{
		Workers: 1, Inline: inline.Default(), Fast: true, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	results := make(chan *result, 4)
	peer, err := transport.Listen(transport.Config{Name: "stranger", Logger: slog.New(slog.DiscardHandler)},
		func(from string, tm *transport.Message) {
			if m, err := decodeMessage(tm); err == nil {
				if r, ok := m.(*result); ok {
					results <- r
				}
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	const job = 5
	// The job starts from another node; the stranger only pushes.
	if err := peer.SendSync(node.TransportAddr(), encodeMessage(&jobStart{Job: job})); err != nil {
		t.Fatal(err)
	}
	if !double.Lendable() {
		t.Fatal("the test task cannot cross nodes")
	}
	push := &stealReply{Job: job, Tasks: []taskRecord{{ID: 8, Kind: double.Name(), Arg: encodeInt64(21)}}, ReplyTo: peer.Addr()}
	if err := peer.SendSync(node.TransportAddr(), encodeMessage(push)); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-results:
		if r.Task != 8 || r.Err != "" || decodeInt64(r.Value) != 42 {
			t.Fatalf("result %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the result of a pushed task never came back")
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
	node, err := Start(Config{Workers: 1, Inline: inline.Default(), Fast: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
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
	node, err := Start(Config{Workers: 1, Inline: inline.Default(), Fast: true, Client: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	replies := make(chan message, 4)
	root, err := transport.Listen(transport.Config{Name: "other-root", Logger: slog.New(slog.DiscardHandler)},
		func(from string, tm *transport.Message) {
			if m, err := decodeMessage(tm); err == nil {
				replies <- m
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	const job = 91
	if err := root.SendSync(node.TransportAddr(), encodeMessage(&jobStart{Job: job, ReplyTo: root.Addr()})); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-replies:
		if r, ok := m.(*jobRefused); !ok || r.Job != job || !strings.Contains(r.Reason, "client") {
			t.Fatalf("reply %+v: want a refusal of job %d saying the node is a client", m, job)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the client did not answer the invitation")
	}
	// Not ended: EndJob would wait for a report from the bare transport,
	// which BeginJob invited as a peer it had heard from.
	if _, err := node.BeginJob(JobOptions{}); err != nil {
		t.Fatalf("the client cannot begin its own job after an invitation: %v", err)
	}
}

// memberPolicy moves no work and records the members it hears of.
type memberPolicy struct {
	noPolicy
	mu    sync.Mutex
	heard map[sched.NodeID]bool
}

func (p *memberPolicy) Membership(_ time.Time, ev sched.MemberEvent) []sched.Action {
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
	return p.heard[sched.NodeID(id)]
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
		n, err := Start(Config{
			Workers: 1, Inline: inline.Default(), Fast: true, Client: client, Join: join, Logger: slog.New(slog.DiscardHandler),
			Policy: func(id sched.NodeID, _ string) sched.Policy {
				p := &memberPolicy{heard: map[sched.NodeID]bool{}}
				mu.Lock()
				policies[string(id)] = append(policies[string(id)], p)
				mu.Unlock()
				return p
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		return n
	}
	server := start(false, nil)
	root := start(true, []string{server.GossipAddr()})
	other := start(true, []string{server.GossipAddr()})
	knows := func(n, m *Node) bool {
		meta, ok := n.memberMeta(sched.NodeID(m.Name()))
		return ok && meta.Client
	}
	for deadline := time.Now().Add(10 * time.Second); !knows(server, root) || !knows(server, other) || !knows(root, other); {
		if time.Now().After(deadline) {
			t.Fatal("the nodes did not learn of each other")
		}
		time.Sleep(10 * time.Millisecond)
	}
	job, err := root.BeginJob(JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); server.engineOf(job.ID) == nil; {
		if time.Now().After(deadline) {
			t.Fatal("the server did not begin serving the job")
		}
		time.Sleep(10 * time.Millisecond)
	}
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
