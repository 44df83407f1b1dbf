package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-sockaddr"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/cputime"
	"github.com/tsys-go/tsys/net/membership"
	"github.com/tsys-go/tsys/net/transport"
	"github.com/tsys-go/tsys/sched"
	"github.com/tsys-go/tsys/tsys"
)

// Config describes one node.
type Config struct {
	// Name is the node's unique name (default: "n-" and random hex).
	Name string
	// Bind is the gossip address HOST:PORT (default 127.0.0.1:0); the task
	// transport listens on the same host, on TransportPort (0: one the
	// system picks), and the node advertises its address in its metadata.
	Bind          string
	TransportPort int
	// Advertise is the HOST[:PORT] peers dial for gossip when Bind is not
	// it (a wildcard such as 0.0.0.0, or NAT); the task transport is
	// advertised on the same host. Bound to a wildcard without it, the
	// node advertises the first private address it finds.
	Advertise string
	// JoinTimeout bounds how long Start retries seeds that do not answer
	// (seeds often start together); ProbeInterval and SuspicionMult tune
	// failure detection (membership.Config says how). 0: the defaults.
	JoinTimeout   time.Duration
	ProbeInterval time.Duration
	SuspicionMult int
	// Join lists seed gossip addresses; empty for the first node.
	Join []string
	// Zone labels the node's part of the network, for zone-aware policies.
	Zone string
	// Key is the cluster key (32 bytes, see ReadKeyFile); nil binds to
	// loopback only.
	Key []byte
	// Workers, Inline: as for a tsys.Runtime.
	Workers int
	Inline  inline.Policy
	// Policy makes the node's cluster scheduler policy; nil makes a node
	// that takes part in jobs but moves no work (--sched local).
	Policy func(self sched.NodeID, zone string) sched.Policy
	// Fast selects memberlist timing for loopback and tests: a dead node is
	// noticed in about a second instead of several.
	Fast bool
	// TickEvery is how often the policy hears the time (default 2 ms).
	TickEvery time.Duration
	// LeaveGrace is how long a node that left gracefully has for its
	// results in flight to arrive before its lenders run again what it
	// held (default 2 s).
	LeaveGrace time.Duration
	Logger     *slog.Logger
}

// Node is a runtime that is part of a cluster.
type Node struct {
	cfg    Config
	name   sched.NodeID
	log    *slog.Logger
	rt     *tsys.Runtime
	pool   *sched.Pool
	policy sched.Policy
	ml     *membership.Membership
	tr     *transport.Transport
	trAddr string // the transport's address as peers dial it

	peersMu sync.RWMutex
	peers   map[sched.NodeID]string // transport address of each member
	// schedulers names each member's scheduler, from its metadata.
	schedulers map[sched.NodeID]string
	// left are members that left or died: a late message of theirs must
	// not make them peers again (rememberPeer) until they rejoin.
	left map[sched.NodeID]bool

	// mu orders the policy's events and guards the job state and the
	// lent-task records.
	mu sync.Mutex
	// hungryAfter is the policy's Advice.HungryAfter as Unix nanoseconds
	// (0: now; math.MaxInt64: only another event can help), so that idle
	// workers learn it from one atomic load rather than the lock.
	hungryAfter atomic.Int64
	// useful and rate measure Load.Rate; only the tick goroutine uses them.
	useful   sched.UsefulWork
	rate     sched.RateMeter
	busy     sched.RateMeter
	taskTime sched.TaskTimeMeter
	// measured is the load the last tick measured; its rates go with the
	// ready count of the moment into load reports. n.mu guards it.
	measured sched.Load
	// usefulNow is the useful work so far, published by each tick for the
	// job's counters; usefulBase is its value when the job began.
	usefulNow, usefulBase atomic.Int64
	job                   uint64
	rootOf                sched.NodeID // root node of the job being served
	rooted                *Job         // the job this node is the root of, between BeginJob and EndJob
	lent                  map[uint64]*lentTask
	borrowed              map[*sched.Header]loan
	serving               *serving
	offsets               map[sched.NodeID]time.Duration // peers' clocks against this one's, for the job's timeline
	// jobBegan is when this node began its part in the job, for the
	// debug log of how soon work arrived.
	jobBegan time.Time

	nextID atomic.Uint64
	// fishedAt is when the request in flight to each peer was sent, for
	// the round-trip counters. n.mu guards it.
	fishedAt      map[sched.NodeID]time.Time
	stealRequests atomic.Int64
	stealAnswers  atomic.Int64
	stealWait     atomic.Int64
	statusSent    atomic.Int64
	statusBytes   atomic.Int64
	remoteSteals  atomic.Int64
	tasksSent     atomic.Int64
	tasksReceived atomic.Int64
	firstWork     atomic.Int64 // ns from jobBegan to the first borrowed task; 0 before it
	tasksRerun    atomic.Int64
	tasksReturned atomic.Int64
	handedBack    atomic.Int64 // borrowed tasks this node handed back as it drained
	// sentByType counts the messages and body bytes sent, by type, since
	// the node started (Snapshot).
	sentByType [len(vocabulary)]struct{ messages, bytes atomic.Int64 }
	// snapshotWaiters are ClusterSnapshot calls waiting for their peers'
	// answers, by request id. n.mu guards it.
	snapshotWaiters map[uint64]chan Snapshot
	// draining is set by Drain: the node asks for no work, takes none,
	// and hands back what it has not started.
	draining atomic.Bool
	trBase   transport.Stats

	// pushed carries the workers' Pushed signals to the tick goroutine.
	pushed    chan struct{}
	shutdown  chan struct{}
	closeOnce sync.Once
	// shutdownOnce closes shutdown: a peer's request and a drain may both.
	shutdownOnce sync.Once
	tickStop     chan struct{}
	tickDone     chan struct{}
}

// loan is what a borrower keeps of a borrowed task: where its result goes.
type loan struct {
	node sched.NodeID
	job  uint64
	id   uint64
}

type lentTask struct {
	h    *sched.Header
	node sched.NodeID
	job  uint64
}

// Start makes a node: it binds the transport, joins the cluster and starts
// listening for work.
func Start(cfg Config) (*Node, error) {
	if cfg.Bind == "" {
		cfg.Bind = "127.0.0.1:0"
	}
	if cfg.Name == "" {
		var b [4]byte
		rand.Read(b[:])
		cfg.Name = "n-" + hex.EncodeToString(b[:])
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.TickEvery <= 0 {
		cfg.TickEvery = 2 * time.Millisecond
	}
	if cfg.LeaveGrace <= 0 {
		cfg.LeaveGrace = 2 * time.Second
	}
	host, _, err := net.SplitHostPort(cfg.Bind)
	if err != nil {
		return nil, fmt.Errorf("--bind %q: want HOST:PORT: %w", cfg.Bind, err)
	}
	if cfg.TransportPort < 0 || cfg.TransportPort > 65535 {
		return nil, fmt.Errorf("--task-port %d: want a port from 0 (any) to 65535", cfg.TransportPort)
	}
	advHost, err := AdvertisedHost(host, cfg.Advertise)
	if err != nil {
		return nil, err
	}
	n := &Node{
		cfg:        cfg,
		name:       sched.NodeID(cfg.Name),
		log:        cfg.Logger.With("node", cfg.Name),
		peers:      map[sched.NodeID]string{},
		schedulers: map[sched.NodeID]string{},
		left:       map[sched.NodeID]bool{},
		lent:       map[uint64]*lentTask{},
		borrowed:   map[*sched.Header]loan{},
		fishedAt:   map[sched.NodeID]time.Time{},

		snapshotWaiters: map[uint64]chan Snapshot{},
		pushed:          make(chan struct{}, 1),
		shutdown:        make(chan struct{}),
		tickStop:        make(chan struct{}),
		tickDone:        make(chan struct{}),
	}
	n.rt = tsys.New(tsys.Workers(cfg.Workers), tsys.Inline(cfg.Inline))
	n.policy = noPolicy{}
	if cfg.Policy != nil {
		n.policy = cfg.Policy(n.name, cfg.Zone)
	}
	n.advise()
	n.pool = n.rt.Pool()
	n.pool.SetRemote(n)

	n.tr, err = transport.Listen(transport.Config{
		Name: cfg.Name, Bind: net.JoinHostPort(host, strconv.Itoa(cfg.TransportPort)), Key: cfg.Key, Logger: n.log,
	}, n.handle)
	if err != nil {
		return nil, fmt.Errorf("task transport: %w", err)
	}
	_, port, _ := net.SplitHostPort(n.tr.Addr())
	n.trAddr = net.JoinHostPort(advHost, port)
	n.ml, err = membership.Start(membership.Config{
		Name: cfg.Name, Bind: cfg.Bind, Advertise: cfg.Advertise, Join: cfg.Join, Key: cfg.Key, Fast: cfg.Fast, Logger: n.log,
		JoinTimeout: cfg.JoinTimeout, ProbeInterval: cfg.ProbeInterval, SuspicionMult: cfg.SuspicionMult,
		Meta: membership.Meta{Transport: n.trAddr, Zone: cfg.Zone, Version: membership.ProtocolVersion, Scheduler: n.policy.Name()},
	}, n.onMember)
	if err != nil {
		n.tr.Close()
		return nil, err
	}
	for _, m := range n.ml.Members() {
		if m.Name != cfg.Name {
			n.onMember(membership.Event{Kind: membership.Joined, Member: m})
		}
	}
	go n.tick()
	return n, nil
}

// AdvertisedHost is the host a node bound to host tells its peers to dial:
// advertise's host if given (HOST or HOST:PORT), else host itself, or for a
// wildcard (0.0.0.0, ::) the first private address of this machine, as
// memberlist picks for gossip.
func AdvertisedHost(host, advertise string) (string, error) {
	if advertise != "" {
		h, _, err := net.SplitHostPort(advertise)
		if err != nil {
			h = advertise // HOST alone
		}
		if h == "" {
			return "", fmt.Errorf("--advertise %q: want HOST or HOST:PORT", advertise)
		}
		return h, nil
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return host, nil
	}
	private, err := sockaddr.GetPrivateIP()
	if err != nil || private == "" {
		return "", fmt.Errorf("bound to %q, and no private address of this machine to advertise (%v): set --advertise HOST", host, err)
	}
	return private, nil
}

// Name returns the node's name.
func (n *Node) Name() string { return string(n.name) }

// GossipAddr is the address others pass to --join.
func (n *Node) GossipAddr() string { return n.ml.Addr() }

// TransportAddr is where the node takes task traffic.
func (n *Node) TransportAddr() string { return n.trAddr }

// Runtime is the node's runtime: run the root task of a job on it between
// BeginJob and EndJob.
func (n *Node) Runtime() *tsys.Runtime { return n.rt }

// Members returns the names of the cluster's live members, this node
// included.
func (n *Node) Members() []string {
	var out []string
	for _, m := range n.ml.Members() {
		out = append(out, m.Name)
	}
	return out
}

// checkSchedulers returns an error naming the first member whose scheduler
// differs from this node's: a job run across them would measure neither.
func (n *Node) checkSchedulers() error {
	n.peersMu.RLock()
	defer n.peersMu.RUnlock()
	mine := n.policy.Name()
	for id, theirs := range n.schedulers {
		if theirs != mine {
			return fmt.Errorf("node %s runs scheduler %q, this node %q: start every node of a cluster with the same --sched", id, theirs, mine)
		}
	}
	return nil
}

// Reachable reports how many other members this node can send tasks to:
// those whose transport address gossip has brought. A job begun now runs on
// them and this node.
func (n *Node) Reachable() int {
	n.peersMu.RLock()
	defer n.peersMu.RUnlock()
	return len(n.peers)
}

// ShutdownRequested is closed when another node asked this one to stop,
// or a drain it was asked for has taken it out of the cluster.
func (n *Node) ShutdownRequested() <-chan struct{} { return n.shutdown }

func (n *Node) requestShutdown() {
	n.shutdownOnce.Do(func() { close(n.shutdown) })
}

// Close leaves the cluster and stops the node.
func (n *Node) Close() error {
	var err error
	n.closeOnce.Do(func() {
		close(n.tickStop)
		<-n.tickDone
		n.stopServing()
		err = errors.Join(n.ml.Leave(time.Second), n.ml.Shutdown(), n.tr.Close())
	})
	return err
}

func (n *Node) peer(id sched.NodeID) (string, bool) {
	n.peersMu.RLock()
	defer n.peersMu.RUnlock()
	a, ok := n.peers[id]
	return a, ok
}

func (n *Node) peerList() map[sched.NodeID]string {
	n.peersMu.RLock()
	defer n.peersMu.RUnlock()
	out := make(map[sched.NodeID]string, len(n.peers))
	for k, v := range n.peers {
		out[k] = v
	}
	return out
}

// onMember hears membership changes.
func (n *Node) onMember(ev membership.Event) {
	id := sched.NodeID(ev.Member.Name)
	if id == n.name {
		return
	}
	meta := ev.Member.Meta
	switch ev.Kind {
	case membership.Joined, membership.Updated:
		n.peersMu.Lock()
		_, known := n.peers[id]
		delete(n.left, id)
		n.peers[id] = meta.Transport
		n.schedulers[id] = meta.Scheduler
		n.peersMu.Unlock()
		n.event(func(now time.Time) []sched.Action {
			var acts []sched.Action
			if !known {
				acts = n.policy.Membership(now, sched.MemberEvent{Node: id, Zone: meta.Zone, Joined: true})
			}
			return append(acts, n.policy.LoadReport(now, id, meta.Load)...)
		})
		if !known {
			// Not on memberlist's goroutine: inviting dials the newcomer.
			go n.inviteLate(id, meta.Transport, meta.Scheduler)
		}
	case membership.Left:
		n.peersMu.Lock()
		delete(n.peers, id)
		delete(n.schedulers, id)
		n.left[id] = true
		n.peersMu.Unlock()
		n.mu.Lock()
		now := time.Now()
		acts := n.policy.Membership(now, sched.MemberEvent{Node: id, Zone: meta.Zone, Joined: false})
		n.advise()
		rootGone := n.serving != nil && n.rootOf == id
		n.mu.Unlock()
		n.peerGone(id)
		if ev.Failed {
			n.rerunLent(id, n.lentTo(id))
		} else {
			// A node that leaves gracefully sent its results before it
			// left, but gossip may bring the news first: give them time.
			// Only what it holds now: a node of the same name may come
			// back and borrow anew meanwhile.
			held := n.lentTo(id)
			time.AfterFunc(n.cfg.LeaveGrace, func() { n.rerunLent(id, held) })
		}
		if rootGone {
			n.log.Warn("the root node of the job left; dropping the job", "peer", id)
			n.stopServing()
		}
		n.act(acts)
	}
}

// lentTo lists the tasks lent to node id whose results have not come back.
func (n *Node) lentTo(id sched.NodeID) []uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	var ids []uint64
	for tid, lt := range n.lent {
		if lt.node == id {
			ids = append(ids, tid)
		}
	}
	return ids
}

// rerunLent runs here those of the tasks ids lent to peer whose results
// have not come back: peer left or died.
func (n *Node) rerunLent(peer sched.NodeID, ids []uint64) {
	if back := n.reclaim(ids); len(back) > 0 {
		n.log.Warn("a node left holding lent tasks; running them here", "peer", peer, "tasks", len(back))
		n.tasksRerun.Add(int64(len(back)))
		n.pool.Inject(back...)
	}
}

// tick gives the policy the time and gossips the node's load.
func (n *Node) tick() {
	defer close(n.tickDone)
	t := time.NewTicker(n.cfg.TickEvery)
	defer t.Stop()
	lastGossip := time.Time{}
	for {
		select {
		case <-n.tickStop:
			return
		case <-n.pushed:
			n.event(func(now time.Time) []sched.Action { return n.policy.Pushed(now, n.pool.Load().Ready) })
		case <-t.C:
			now := time.Now()
			l := n.pool.Load()
			cpu, cpuOK := cputime.Process()
			busy := n.pool.BusyTime(now)
			useful := n.useful.Add(busy, cpu, cpuOK)
			n.usefulNow.Store(int64(useful))
			l.Rate = n.rate.Observe(now, useful)
			l.Busy = n.busy.Observe(now, busy)
			l.TaskTime = n.taskTime.Observe(now, useful, n.pool.TasksDone())
			n.event(func(now time.Time) []sched.Action {
				n.measured = l
				return n.policy.Tick(now, l)
			})
			if now.Sub(lastGossip) > 100*time.Millisecond {
				lastGossip = now
				n.ml.SetLoad(l)
			}
		}
	}
}

// event hands the policy one event, at the time it is handled, and carries
// out the actions it returns. Events reach the policy one at a time.
func (n *Node) event(ev func(now time.Time) []sched.Action) {
	n.mu.Lock()
	acts := ev(time.Now())
	n.advise()
	n.mu.Unlock()
	n.act(acts)
}

// advise publishes the policy's advice to the workers. n.mu is held (or the
// node is not yet running).
func (n *Node) advise() {
	a := n.policy.Advice()
	if n.draining.Load() {
		// Every spawn a task, so that the pieces of what it still runs can
		// go to other nodes (Drain).
		a.Expose = math.MaxInt32
	}
	switch {
	case !a.HungryAfter.Before(sched.Never):
		n.hungryAfter.Store(math.MaxInt64)
	case a.HungryAfter.Before(time.Unix(0, 1)):
		n.hungryAfter.Store(0) // the zero time, or any time long past
	default:
		n.hungryAfter.Store(a.HungryAfter.UnixNano())
	}
	if n.pool != nil {
		n.pool.SetExpose(a.Expose)
		n.pool.SetReserve(a.Reserve)
		n.pool.SetWanted(a.Deferred > 0)
	}
}

// Hungry implements sched.Remote: a worker found no work at home. The
// policy hears of it only when its advice says it could act on it.
func (n *Node) Hungry() {
	if n.draining.Load() {
		return
	}
	if g := n.hungryAfter.Load(); g == math.MaxInt64 || (g != 0 && time.Now().UnixNano() < g) {
		return
	}
	n.event(n.policy.Hungry)
}

// Pushed implements sched.Remote: a worker made a task ready while a
// request waits for one. It only signals the tick goroutine, which asks the
// policy: the worker goes on spawning.
func (n *Node) Pushed() {
	select {
	case n.pushed <- struct{}{}:
	default:
	}
}

// act carries out policy actions that leave the node.
func (n *Node) act(acts []sched.Action) {
	for _, a := range acts {
		switch a.Kind {
		case sched.Fish:
			if !n.draining.Load() {
				n.fish(a.Node, a.Count)
			}
		case sched.Give:
			n.push(a.Node, a.Count)
		case sched.Refuse:
			n.refuse(a.Node)
		case sched.Report:
			n.reportLoad()
		}
	}
}

// noPolicy is the policy of a node that moves no work: it never fishes and
// refuses every request.
type noPolicy struct{}

func (noPolicy) Name() string                                                  { return "local" }
func (noPolicy) Hungry(time.Time) []sched.Action                               { return nil }
func (noPolicy) Pushed(time.Time, int) []sched.Action                          { return nil }
func (noPolicy) Advice() sched.Advice                                          { return sched.Advice{HungryAfter: sched.Never} }
func (noPolicy) Tick(time.Time, sched.Load) []sched.Action                     { return nil }
func (noPolicy) StealReply(time.Time, sched.NodeID, int) []sched.Action        { return nil }
func (noPolicy) LoadReport(time.Time, sched.NodeID, sched.Load) []sched.Action { return nil }
func (noPolicy) Membership(time.Time, sched.MemberEvent) []sched.Action        { return nil }
func (noPolicy) JobStarted(time.Time) []sched.Action                           { return nil }
func (noPolicy) StealRequest(_ time.Time, from sched.NodeID, _, _ int) sched.Action {
	return sched.Action{Kind: sched.Refuse, Node: from}
}
