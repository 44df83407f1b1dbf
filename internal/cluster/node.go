package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-sockaddr"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/cputime"
	"github.com/tsys-go/tsys/internal/net/membership"
	"github.com/tsys-go/tsys/internal/net/transport"
	"github.com/tsys-go/tsys/internal/share"
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
	Policy func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy
	// Share is how the node shares its workers between the jobs it serves
	// at once (package share; nil: share.FCHP).
	Share share.Policy
	// Client marks a node that only roots its own jobs (tsys run): the
	// sharing policies do not count it among the nodes that serve.
	Client bool
	// Fast selects memberlist timing for loopback and tests: a dead node is
	// noticed in about a second instead of several.
	Fast bool
	// TickEvery is how often the policy hears the time (default
	// DefaultTickEvery).
	TickEvery time.Duration
	// LeaveGrace is how long a node that left gracefully has for its
	// results in flight to arrive before its lenders run again what it
	// held (default 2 s).
	LeaveGrace time.Duration
	// RootGrace is how long a node serves on a job whose root gossip
	// declared dead, in case the root was only slow (suspect.go); default
	// DefaultRootGrace.
	RootGrace time.Duration
	// AcceptBuilds has the node serve jobs of another build of its
	// program, and, on a job's root, asks every node to: the operator
	// knows the builds compute alike. Each such job is logged as a
	// warning; a task whose types differ is refused all the same.
	AcceptBuilds bool
	Logger       *slog.Logger

	// newTicker makes the tick's clock (default a time.Ticker); tests
	// drive it by hand.
	newTicker func(time.Duration) tickClock
}

// DefaultTickEvery is Config.TickEvery's default: how often a node's
// policies hear the time and its load is measured, which is also what a
// tick's cost is a share of (package internal/calibrate).
const DefaultTickEvery = 2 * time.Millisecond

// Node is a runtime that is part of a cluster.
type Node struct {
	cfg  Config
	name clusterpolicy.NodeID
	log  *slog.Logger
	// netLog takes the lines a message from the network can cause, which
	// a keyless stranger can send by the thousand: each kind has its
	// bucket (transport.LimitedLog).
	netLog        transport.LimitedLog
	schedulerName string
	ml            *membership.Membership
	tr            *transport.Transport
	trAddr        string // the transport's address as peers dial it

	// peers is what the node knows of the other members (peers.go).
	peers *peerBook
	// out is where the node's messages leave (send.go).
	out *outbox

	// sharing carries out the sharing policy's grants (share.go).
	sharing *sharing
	// jobs are the jobs this node roots or serves, with their engines and
	// runtimes (jobs.go).
	jobs *jobTable
	// mu guards the snapshot waiters and the dropped jobs.
	mu sync.Mutex
	// snapshotWaiters are ClusterSnapshot calls waiting for their peers'
	// answers, by request id.
	snapshotWaiters map[uint64]chan Snapshot
	// dropped are jobs this node dropped when their root stayed gone for
	// RootGrace, with their roots, to ask about if a root comes back
	// (suspect.go); at most maxDropped.
	dropped map[uint64]clusterpolicy.NodeID

	nextID atomic.Uint64
	// wakeups counts the ticks the node handled: an idle one handles none.
	wakeups atomic.Int64
	// dozing: the tick stopped its clock, or set it to the policies' next
	// due, while every job's workers wait (idletick.go); an event rouses it.
	dozing atomic.Bool
	// jobsTotal counts the engines the node has made: the jobs it served
	// or rooted, on any runtime (Snapshot.JobsTotal).
	jobsTotal atomic.Int64
	// draining is set by Drain: the node asks for no work, takes none,
	// and hands back what it has not started.
	draining atomic.Bool
	// stopping counts the engines whose runs are stopping: their runtimes
	// are taken, though no engine has them.
	stopping atomic.Int32

	// pushed carries the workers' Pushed signals to the tick goroutine.
	pushed    chan struct{}
	shutdown  chan struct{}
	closeOnce sync.Once
	// shutdownOnce closes shutdown: a peer's request and a drain may both.
	shutdownOnce sync.Once
	// dismissed is the first shutdown a peer sent (Dismissed).
	dismissed atomic.Pointer[shutdown]
	tickStop  chan struct{}
	tickDone  chan struct{}
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
		cfg.TickEvery = DefaultTickEvery
	}
	if cfg.newTicker == nil {
		cfg.newTicker = newRealTicker
	}
	if cfg.LeaveGrace <= 0 {
		cfg.LeaveGrace = 2 * time.Second
	}
	if cfg.RootGrace <= 0 {
		cfg.RootGrace = DefaultRootGrace
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
	if cfg.Share == nil {
		cfg.Share = share.FCHP{}
	}
	n := &Node{
		cfg:    cfg,
		name:   clusterpolicy.NodeID(cfg.Name),
		log:    cfg.Logger.With("node", cfg.Name),
		netLog: transport.NewLimitedLog(cfg.Logger.With("node", cfg.Name)),
		peers:  newPeerBook(clusterpolicy.NodeID(cfg.Name)),

		snapshotWaiters: map[uint64]chan Snapshot{},
		dropped:         map[uint64]clusterpolicy.NodeID{},
		pushed:          make(chan struct{}, 1),
		shutdown:        make(chan struct{}),
		tickStop:        make(chan struct{}),
		tickDone:        make(chan struct{}),
	}
	n.jobs = newJobTable(n.newRuntime)
	n.sharing = &sharing{self: n.name, workers: n.jobs.main.Workers(), policy: cfg.Share, jobs: n.jobs, peers: n.peers}
	n.schedulerName = n.makePolicy().Name()

	n.tr, err = transport.Listen(transport.Config{
		// the transport names the node in its lines itself
		Name: cfg.Name, Bind: net.JoinHostPort(host, strconv.Itoa(cfg.TransportPort)), Key: cfg.Key, Logger: cfg.Logger,
		// gossip's members are admitted ahead of strangers
		Members: n.peers,
	}, inbox{n}.handle)
	if err != nil {
		return nil, fmt.Errorf("task transport: %w", err)
	}
	n.out = &outbox{tr: n.tr, peers: n.peers}
	_, port, _ := net.SplitHostPort(n.tr.Addr())
	n.trAddr = net.JoinHostPort(advHost, port)
	n.ml, err = membership.Start(membership.Config{
		Name: cfg.Name, Bind: cfg.Bind, Advertise: cfg.Advertise, Join: cfg.Join, Key: cfg.Key, Fast: cfg.Fast, Logger: n.log,
		JoinTimeout: cfg.JoinTimeout, ProbeInterval: cfg.ProbeInterval, SuspicionMult: cfg.SuspicionMult,
		Meta: membership.Meta{Transport: n.trAddr, Zone: cfg.Zone, Version: membership.ProtocolVersion,
			Scheduler: n.schedulerName, Share: n.sharing.policy.Name(), Client: cfg.Client},
	}, inbox{n}.onMember)
	if err != nil {
		n.tr.Close()
		return nil, err
	}
	for _, m := range n.ml.Members() {
		if m.Name != cfg.Name {
			inbox{n}.onMember(membership.Event{Kind: membership.Joined, Member: m})
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
func (n *Node) Runtime() *tsys.Runtime { return n.jobs.main }

// Members returns the names of the cluster's live members, this node
// included.
func (n *Node) Members() []string {
	var out []string
	for _, m := range n.ml.Members() {
		out = append(out, m.Name)
	}
	return out
}

// Reachable reports how many other members this node can send tasks to:
// those whose transport address gossip has brought. A job begun now runs on
// them and this node.
func (n *Node) Reachable() int { return n.peers.reachable() }

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
		for _, e := range n.jobs.list() {
			if e.rooted == nil {
				n.stopEngine(e)
			}
		}
		err = errors.Join(n.ml.Leave(time.Second), n.ml.Shutdown(), n.tr.Close())
	})
	return err
}

// makePolicy makes a scheduler policy for one job.
func (n *Node) makePolicy() clusterpolicy.Policy {
	if n.cfg.Policy == nil {
		return noPolicy{}
	}
	return n.cfg.Policy(n.name, n.cfg.Zone)
}

// newRuntime makes a runtime as the node's configuration says.
func (n *Node) newRuntime() *tsys.Runtime {
	return tsys.New(tsys.Workers(n.cfg.Workers), tsys.Inline(n.cfg.Inline))
}

// onMember hears membership changes. Each rouses a dozing tick once it
// has taken effect: a job's root that gossip no longer lists is timed by
// the tick (suspect.go), whether or not the job's policy hears of it.
func (n inbox) onMember(ev membership.Event) {
	defer n.rouse()
	id := clusterpolicy.NodeID(ev.Member.Name)
	if id == n.name {
		return
	}
	meta := ev.Member.Meta
	switch ev.Kind {
	case membership.Joined, membership.Updated:
		known := !n.peers.joined(id, meta)
		if !known {
			n.memberBack(id)
		}
		for _, e := range n.jobs.list() {
			if !e.hears(id, meta) {
				continue
			}
			e.event(func(now time.Time) []clusterpolicy.Action {
				var acts []clusterpolicy.Action
				if !known {
					acts = e.policy.Membership(now, clusterpolicy.MemberEvent{Node: id, Zone: meta.Zone, Joined: true})
				}
				return append(acts, e.policy.LoadReport(now, id, meta.Load)...)
			})
		}
		if !known {
			// Not on memberlist's goroutine: inviting dials the newcomer.
			go n.inviteLate(id, meta, time.Now())
		}
	case membership.Left:
		n.peers.left(id)
		for _, e := range n.jobs.list() {
			n.memberLeft(e, id, meta, ev.Failed)
		}
	}
}

// memberLeft tells e's job that node id left or died.
func (n inbox) memberLeft(e *engine, id clusterpolicy.NodeID, meta membership.Meta, failed bool) {
	var acts []clusterpolicy.Action
	if e.hears(id, meta) {
		e.mu.Lock()
		acts = e.policy.Membership(time.Now(), clusterpolicy.MemberEvent{Node: id, Zone: meta.Zone, Joined: false})
		e.advise()
		e.mu.Unlock()
	}
	if e.rooted != nil {
		e.rooted.peerGone(id)
	}
	if failed {
		e.lender.rerunLent(id, e.lender.lentTo(id), "gossip declared the borrower dead")
	} else {
		// A node that leaves gracefully sent its results before it
		// left, but gossip may bring the news first: give them time.
		// Only what it holds now: a node of the same name may come
		// back and borrow anew meanwhile.
		held := e.lender.lentTo(id)
		time.AfterFunc(n.cfg.LeaveGrace, func() { e.lender.rerunLent(id, held, "the borrower left holding them") })
	}
	if e.rooted == nil && e.root() == id {
		if failed {
			e.rootGone(time.Now(), meta.Transport)
		} else {
			// A root leaves gracefully after its job's end, so the job
			// is over; this node missed the end (gossip had it dead).
			n.log.Info("the job's root left the cluster; the job is over here", "root", id)
			go n.dropServed(e) // not on gossip's goroutine: stopping waits for the tasks running
			return
		}
	}
	e.act(acts)
}

// tick gives the policies the time, shares the workers between the jobs,
// and gossips the node's load. With no job it publishes the load once and
// stops its clock until a job arrives; with jobs whose work is all
// elsewhere it dozes until its policies next need the time or an event
// comes (idletick.go).
func (n *Node) tick() {
	defer close(n.tickDone)
	it := &idleTick{clock: n.cfg.newTicker(n.cfg.TickEvery), every: n.cfg.TickEvery, running: true, period: n.cfg.TickEvery}
	defer it.sleep()
	lastGossip, lastCheck := time.Time{}, time.Time{}
	var gossiped clusterpolicy.Load
	for {
		select {
		case <-n.tickStop:
			return
		case <-n.jobs.wake:
			n.dozing.Store(false)
			it.wake()
		case <-n.pushed:
			for _, e := range n.jobs.list() {
				if e.pushed.Swap(false) {
					e.event(func(now time.Time) []clusterpolicy.Action { return e.policy.Pushed(now, e.pool.Lendable()) })
				}
			}
		case <-it.clock.C():
			n.dozing.Store(false) // the policies' events during this tick need not rouse it
			n.wakeups.Add(1)
			now := time.Now()
			jobs := n.jobs.list()
			total := n.measure(now, jobs)
			n.sharing.apply()
			if now.Sub(lastCheck) > checkEvery {
				lastCheck = now
				for _, e := range jobs {
					e.lender.check(now)
					if e.rooted != nil {
						e.rooted.reinviteSilent(now)
					}
				}
				n.dropOrphans(now)
			}
			wait, doze := n.dozeFor(now, jobs)
			if len(jobs) == 0 || doze || now.Sub(lastGossip) > 100*time.Millisecond {
				// Unchanged, the load is not gossiped again (membership).
				lastGossip, gossiped = now, steadyLoad(total, gossiped)
				n.ml.SetLoad(gossiped)
			}
			switch {
			case len(jobs) == 0:
				it.sleep()
			case doze:
				it.doze(wait)
			default:
				it.wake()
			}
		}
	}
}

// measure measures each job's load at now and sums them up: the node's.
func (n *Node) measure(now time.Time, jobs []*engine) clusterpolicy.Load {
	total := clusterpolicy.Load{Workers: n.jobs.main.Workers()}
	if len(jobs) == 0 {
		return total
	}
	cpu, cpuOK := cputime.Process()
	for _, e := range jobs {
		l := e.measure(now, cpu, cpuOK)
		total.Ready += l.Ready
		total.Idle += l.Idle
		total.Rate += l.Rate
		total.Busy += l.Busy
		total.TaskTime = max(total.TaskTime, l.TaskTime)
	}
	return total
}

// noPolicy is the policy of a node that moves no work: it never fishes and
// refuses every request.
type noPolicy struct{}

func (noPolicy) Name() string                                 { return "local" }
func (noPolicy) Hungry(time.Time) []clusterpolicy.Action      { return nil }
func (noPolicy) Pushed(time.Time, int) []clusterpolicy.Action { return nil }
func (noPolicy) Advice() clusterpolicy.Advice {
	return clusterpolicy.Advice{HungryAfter: clusterpolicy.Never}
}
func (noPolicy) Tick(time.Time, clusterpolicy.Load) []clusterpolicy.Action              { return nil }
func (noPolicy) StealReply(time.Time, clusterpolicy.NodeID, int) []clusterpolicy.Action { return nil }
func (noPolicy) LoadReport(time.Time, clusterpolicy.NodeID, clusterpolicy.Load) []clusterpolicy.Action {
	return nil
}
func (noPolicy) Membership(time.Time, clusterpolicy.MemberEvent) []clusterpolicy.Action { return nil }
func (noPolicy) JobStarted(time.Time) []clusterpolicy.Action                            { return nil }
func (noPolicy) StealRequest(_ time.Time, from clusterpolicy.NodeID, _ int, _ clusterpolicy.Load) clusterpolicy.Action {
	return clusterpolicy.Action{Kind: clusterpolicy.Refuse, Node: from}
}
