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
	"github.com/tsys-go/tsys/internal/net/membership"
	"github.com/tsys-go/tsys/internal/net/transport"
	"github.com/tsys-go/tsys/internal/returns"
	"github.com/tsys-go/tsys/internal/runtimecore"
	"github.com/tsys-go/tsys/internal/share"
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
	// Workers, Inline: as for a runtime (runtimecore.Config).
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
	// clusterpolicy.DefaultTickEvery).
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
	// returns tunes how results wait for others to the same lender
	// (default returns.Params{}); tests hold them for as long as they
	// need.
	returns returns.Params
}

// Node is a runtime that is part of a cluster. Its methods are what its
// user calls, safe from any goroutine; the work is its parts' (doc.go,
// "Parts"), which it makes in Start and which reach one another through
// it. Its own fields are set in Start and read-only after, but for the
// atomics and the shutdown's.
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
	// words are when each peer last sent this node a message
	// (silence.go).
	words wordBook

	// sharing carries out the sharing policy's grants (sharing.go).
	sharing *sharing
	// jobs are the jobs this node roots or serves, with their engines and
	// runtimes (jobs.go).
	jobs *jobTable
	// tick drives the policies and the node's own checks (tick.go).
	tick *ticker
	// server is the node's part in other roots' jobs (serve.go).
	server *server
	// orphans are the jobs served here whose root gossip lost
	// (suspect.go).
	orphans *orphans
	// gatherer gathers the cluster's snapshots (snapshot.go).
	gatherer *gatherer
	// drainer takes the node out of the cluster (drain.go).
	drainer *drainer

	nextID atomic.Uint64
	// jobsTotal counts the engines the node has made: the jobs it served
	// or rooted, on any runtime (Snapshot.JobsTotal).
	jobsTotal atomic.Int64
	// draining is set by Drain: the node asks for no work, takes none,
	// and hands back what it has not started.
	draining atomic.Bool

	shutdown  chan struct{}
	closeOnce sync.Once
	// shutdownOnce closes shutdown: a peer's request and a drain may both.
	shutdownOnce sync.Once
	// dismissed is the first shutdown a peer sent (Dismissed).
	dismissed atomic.Pointer[shutdown]
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
		cfg.TickEvery = clusterpolicy.DefaultTickEvery
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

		shutdown: make(chan struct{}),
	}
	n.jobs = newJobTable(n.newRuntime)
	n.tick = &ticker{n: n, pushed: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	n.server = &server{n: n}
	n.gatherer = &gatherer{n: n, waiters: map[uint64]chan Snapshot{}}
	n.drainer = &drainer{n: n}
	n.orphans = &orphans{n: n, dropped: map[uint64]clusterpolicy.NodeID{}}
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
	}, gossipInbox{n}.onMember)
	if err != nil {
		n.tr.Close()
		return nil, err
	}
	for _, m := range n.ml.Members() {
		if m.Name != cfg.Name {
			gossipInbox{n}.onMember(membership.Event{Kind: membership.Joined, Member: m})
		}
	}
	go n.tick.run()
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
// BeginJob and EndJob (a program's job runs on it as a *tsys.Runtime,
// the same runtime under its public name).
func (n *Node) Runtime() *runtimecore.Runtime { return n.jobs.main }

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
		close(n.tick.stop)
		<-n.tick.done
		for _, e := range n.jobs.list() {
			if e.rooted == nil {
				n.server.stopEngine(e)
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
func (n *Node) newRuntime() *runtimecore.Runtime {
	return runtimecore.New(runtimecore.Config{Workers: n.cfg.Workers, Inline: n.cfg.Inline})
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
