package cluster

import (
	"context"
	"encoding/json"
	"github.com/tsys-go/tsys/internal/jobid"
	"sync"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/transport"
	"github.com/tsys-go/tsys/internal/sched"
)

// Snapshot is a node's state at one moment, for watching a cluster while
// it runs (package monitor): who it is, what it serves, and its counters.
// Workers and Net count the current or last job from zero; Transport and
// the Total fields count since the node started.
type Snapshot struct {
	Node      string  `json:"node"`
	AtNs      int64   `json:"at_ns"` // when it was taken, Unix nanoseconds
	Gossip    string  `json:"gossip"`
	Tasks     string  `json:"tasks"`
	Scheduler string  `json:"scheduler"`
	Members   int     `json:"members"`
	Draining  bool    `json:"draining"`
	Job       string  `json:"job,omitempty"`  // the job served or rooted, hex; empty when idle
	Run       uint64  `json:"run"`            // the pool's run (sched.View.Runs): Workers and Net restart when it changes
	Root      string  `json:"root,omitempty"` // the node its root task runs on
	Ready     int     `json:"ready"`          // ready tasks now
	Idle      int     `json:"idle"`           // parked workers now
	Rate      float64 `json:"rate"`           // useful worker-seconds per second, filtered
	// Workers are the workers' counters (sched.View.Live); Net the node's
	// network counters for the job (lent, borrowed, requests, re-runs).
	Workers   []sched.Stats   `json:"workers"`
	Net       NetStats        `json:"net"`
	Transport transport.Stats `json:"transport"`
	JobsTotal int64           `json:"jobs_total"` // jobs this node has served or rooted, on any of its runtimes
	// Share is how the node shares its workers between jobs (--share);
	// Jobs what it gives each job it serves or roots now, in order of
	// their arrival. Job, Root, Run, Workers and Net are those of the
	// node's own runtime, and of the last job that ran on it.
	Share string     `json:"share"`
	Jobs  []JobShare `json:"jobs,omitempty"`
	// Sent counts the messages and body bytes this node sent since it
	// started, by message type.
	Sent map[string]MessageCount `json:"sent"`
	// Memory is the node process's now.
	Memory Memory `json:"memory"`
	// Links are what the job that Net counts borrowed here from each
	// peer, and how long its requests to each waited.
	Links []Link `json:"links,omitempty"`
	// Stream is the task stream of the node's workers, when asked for
	// (ClusterStream).
	Stream *sched.StreamData `json:"stream,omitempty"`
}

// JobProgress is job's progress as the snapshots of the nodes that serve
// it report it (JobShare.Progress): the units their tasks did, summed,
// and the largest total named.
func JobProgress(snaps []Snapshot, job string) sched.Progress {
	var p sched.Progress
	for _, s := range snaps {
		for _, j := range s.Jobs {
			if j.Job == job {
				p.Add(j.Progress)
			}
		}
	}
	return p
}

// MessageCount is how many messages of a type a node sent, and their bytes.
type MessageCount struct {
	Messages int64 `json:"messages"`
	Bytes    int64 `json:"bytes"`
}

// Snapshot returns the node's state now. Safe from any goroutine; it
// takes the node's locks only to copy a few fields.
func (n *Node) Snapshot() Snapshot {
	now := time.Now()
	pool := n.jobs.main.Main()
	run := pool.View().Runs() // before the counters, which are then this run's or later
	s := Snapshot{Run: run,
		Node: string(n.name), AtNs: now.UnixNano(), Gossip: n.GossipAddr(), Tasks: n.trAddr,
		Scheduler: n.schedulerName, Share: n.sharing.policy.Name(), Members: len(n.Members()), Draining: n.draining.Load(),
		Workers: pool.View().Live(now), Transport: n.tr.Stats(), JobsTotal: n.jobsTotal.Load(), Jobs: n.sharing.shares(), Memory: readMemory(),
	}
	l := pool.Port().Load()
	s.Ready, s.Idle = l.Ready, l.Idle
	s.Sent = make(map[string]MessageCount, len(vocabulary))
	for i := range n.out.byType {
		c := &n.out.byType[i]
		s.Sent[vocabulary[i].name] = MessageCount{Messages: c.messages.Load(), Bytes: c.bytes.Load()}
	}
	home, current := n.jobs.homeEngine()
	if home != nil {
		s.Net = home.counters()
		home.mu.Lock()
		s.Rate = home.measured.Rate
		s.Links = home.borrower.links.list()
		home.mu.Unlock()
		if current {
			s.Job, s.Root = jobid.ID(home.info.ID).String(), home.info.Root
		}
	}
	return s
}

// ClusterSnapshot returns this node's snapshot and those of the other
// members that answer within timeout, asked over the task transport.
func (n *Node) ClusterSnapshot(ctx context.Context, timeout time.Duration) []Snapshot {
	return n.gatherer.gather(ctx, timeout, 0, 0)
}

// gatherer gathers the cluster's snapshots (ClusterSnapshot,
// ClusterStream): it asks every peer for its own over the transport, and
// waits, within a bound, for the answers, which the inbox delivers by
// request id. Safe for concurrent use; mu guards waiters alone and is a
// leaf.
type gatherer struct {
	n *Node

	mu sync.Mutex
	// waiters are the gathers waiting for their peers' answers, by
	// request id.
	waiters map[uint64]chan Snapshot
}

// gather is ClusterSnapshot, with each node's task stream of the last
// stream (drawn to res) when stream is positive.
func (g *gatherer) gather(ctx context.Context, timeout, stream, res time.Duration) []Snapshot {
	peers := g.n.peers.list()
	id := g.n.nextID.Add(1)
	replies := make(chan Snapshot, len(peers))
	g.mu.Lock()
	g.waiters[id] = replies
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.waiters, id)
		g.mu.Unlock()
	}()
	asked := 0
	for peer, addr := range peers {
		if err := g.n.out.transmit(addr, &statsRequest{ID: id, ReplyTo: g.n.trAddr, Stream: stream, StreamRes: res}, false, nil); err != nil {
			g.n.log.Debug("a peer was not asked for its state", "peer", peer, "err", err)
			continue
		}
		asked++
	}
	out := []Snapshot{g.streamSnapshot(stream, res)}
	wait := time.NewTimer(timeout)
	defer wait.Stop()
	for range asked {
		select {
		case s := <-replies:
			out = append(out, s)
		case <-wait.C:
			return out
		case <-ctx.Done():
			return out
		}
	}
	return out
}

// answerStats sends this node's snapshot, or with m.All the cluster's, to
// whoever asked; gathering the cluster's waits for the peers, so it is
// not done on the transport's reader.
func (in inbox) answerStats(peer clusterpolicy.NodeID, m *statsRequest) {
	answer := func(snaps []Snapshot) {
		b, _ := json.Marshal(snaps)
		if err := in.n.out.send(peer, m.ReplyTo, &statsReply{ID: m.ID, Snapshots: b}, nil); err != nil {
			in.n.log.Debug("a state request was not answered", "peer", peer, "err", err)
		}
	}
	if !m.All {
		answer([]Snapshot{in.n.gatherer.streamSnapshot(m.Stream, m.StreamRes)})
		return
	}
	go answer(in.n.ClusterSnapshot(context.Background(), gatherTimeout))
}

// gatherTimeout is how long a node gathering the cluster's snapshots waits
// for its peers' (ClusterSnapshot).
const gatherTimeout = 500 * time.Millisecond

// statsArrived hands a peer's snapshot to whoever asked for it.
func (in inbox) statsArrived(peer clusterpolicy.NodeID, m *statsReply) {
	var snaps []Snapshot
	if err := json.Unmarshal(m.Snapshots, &snaps); err != nil || len(snaps) != 1 {
		in.n.netLog.Warn("a peer's state does not decode", "peer", peer, "err", err)
		return
	}
	in.n.gatherer.deliver(m.ID, snaps[0])
}

// deliver hands snapshot s, the answer to request id, to the gather
// that asked, if it still waits.
func (g *gatherer) deliver(id uint64, s Snapshot) {
	g.mu.Lock()
	c := g.waiters[id]
	g.mu.Unlock()
	if c != nil {
		select {
		case c <- s:
		default:
		}
	}
}
