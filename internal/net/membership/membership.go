package membership

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/memberlist"
)

// EventKind tells what happened to a member.
type EventKind int

const (
	// Joined: a node became a live member.
	Joined EventKind = iota + 1
	// Left: a node is gone, gracefully (Leave) or because it failed
	// (Event.Failed).
	Left
	// Updated: a member's metadata changed (load, zone, transport).
	Updated
)

func (k EventKind) String() string {
	switch k {
	case Joined:
		return "joined"
	case Left:
		return "left"
	case Updated:
		return "updated"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Member is one node of the cluster.
type Member struct {
	Name   string
	Gossip string // gossip host:port
	Meta   Meta
	// Leaving is set once the node has called Leave: it is about to go
	// (an Updated event announces it, then Left with Failed=false).
	Leaving bool
}

// Event reports a change of another node (never of this node itself).
type Event struct {
	Kind   EventKind
	Member Member
	Failed bool // Left only: the node was declared dead, it did not Leave
}

// Config configures Start.
type Config struct {
	// Name is the unique node name. Default: hostname-port, or
	// hostname-<random> when the port is picked by the system.
	Name string
	// Bind is the gossip host:port (TCP and UDP). Port 0 picks a free
	// port. Default "127.0.0.1:0".
	Bind string
	// Advertise is the HOST[:PORT] other nodes should use to reach this
	// one, when it differs from Bind (NAT, 0.0.0.0); without a port, the
	// bound one. Optional: bound to 0.0.0.0 without it, memberlist
	// advertises the first private address it finds.
	Advertise string
	// Join lists seed gossip addresses, HOST:PORT or HOST (then port
	// DefaultPort); empty means this is the first node.
	Join []string
	// Key is the cluster key (16, 24 or 32 bytes: AES-128/192/256). nil
	// means no encryption, which is allowed only on a loopback Bind.
	Key []byte
	// Meta is the initial metadata. Version 0 means ProtocolVersion.
	Meta Meta
	// Fast selects test/loopback timing: a dead node is noticed in about
	// 1 s instead of several (see fastTiming).
	Fast bool
	// Logger receives memberlist's own log lines at debug level, and this
	// package's warnings (refused peers). Default slog.Default().
	Logger *slog.Logger
	// ProbeInterval and SuspicionMult are memberlist's failure detection
	// (0: its LAN defaults, 1 s and 4; Fast sets its own): each member is
	// probed about every ProbeInterval, and one that fails its probes is
	// declared dead SuspicionMult x max(1, log10(members)) x ProbeInterval
	// later unless it refutes it; DeadWithin gives the whole bound, the
	// wait for the probe included. Shorter notices a crash sooner, so its work
	// is run again sooner; too short declares a busy node dead, and its
	// work is run twice.
	ProbeInterval time.Duration
	SuspicionMult int
	// JoinTimeout bounds how long Start keeps trying to reach the seeds
	// (unreachable seeds are retried with backoff; each seed is tried at
	// least once). Default 5 s.
	JoinTimeout time.Duration
}

// DefaultJoinTimeout is used when Config.JoinTimeout is 0.
const DefaultJoinTimeout = 5 * time.Second

// minUpdateInterval is the least time between two metadata broadcasts.
const minUpdateInterval = 100 * time.Millisecond

// Membership is this node's view of the cluster. Its methods are safe for
// concurrent use.
type Membership struct {
	name    string
	addr    string
	version uint8
	log     *slog.Logger
	ml      *memberlist.Memberlist

	mu       sync.Mutex
	meta     Meta
	metaWire []byte
	leaving  bool
	// peers mirrors memberlist's live nodes (others only), kept by the event
	// delegate: memberlist.Members returns pointers into its state that it
	// keeps mutating, which cannot be read without racing.
	peers map[string]Member

	dirty chan struct{} // cap 1: metadata changed, gossip it
	// changes counts the metadata changes queued for gossip: a set that
	// leaves the encoded metadata as it was queues none.
	changes atomic.Int64

	bcast sync.Mutex    // held around UpdateNode calls
	stop  chan struct{} // closed by Shutdown
	wg    sync.WaitGroup

	events dispatcher

	life   sync.Mutex // serialises Leave and Shutdown
	closed atomic.Bool

	rejMu      sync.Mutex
	lastReject error // last refusal made by the merge delegate

	warn logLimiter

	lost lostPeers // peers declared dead, asked to join again (reconnect.go)

	// early are leave notices of nodes not known yet (leavenotice.go);
	// mu guards it.
	early earlyLeaves
}

// Start creates the local node and joins the cluster through cfg.Join.
// onEvent (may be nil) receives the changes of other nodes, in order, on one
// goroutine of its own; it may call any method of Membership except Shutdown
// (which waits for that goroutine), and should not block for long.
func Start(cfg Config, onEvent func(Event)) (*Membership, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	bind := cfg.Bind
	if bind == "" {
		bind = "127.0.0.1:0"
	}
	bindIP, bindPort, err := splitHostPort(bind)
	if err != nil {
		return nil, fmt.Errorf("bind %s: %w", bind, err)
	}
	var key []byte
	if len(cfg.Key) > 0 {
		switch len(cfg.Key) {
		case 16, 24, 32:
		default:
			return nil, fmt.Errorf("key: cluster key must be 16, 24 or 32 bytes (AES-128/192/256), got %d", len(cfg.Key))
		}
		key = slices.Clone(cfg.Key)
	} else if !bindIP.IsLoopback() {
		return nil, fmt.Errorf("bind %s: %w: unencrypted gossip is only allowed on a loopback address; set a 16, 24 or 32 byte cluster key", bind, ErrNoKey)
	}

	meta := cfg.Meta
	if meta.Version == 0 {
		meta.Version = ProtocolVersion
	}
	wire, err := meta.MarshalBinary()
	if err != nil {
		return nil, err
	}

	name := cfg.Name
	if name == "" {
		name = defaultName(bindPort)
	}
	joinTimeout := cfg.JoinTimeout
	if joinTimeout <= 0 {
		joinTimeout = DefaultJoinTimeout
	}

	m := &Membership{
		name:     name,
		version:  meta.Version,
		log:      logger,
		meta:     meta,
		metaWire: wire,
		peers:    make(map[string]Member),
		dirty:    make(chan struct{}, 1),
		stop:     make(chan struct{}),
		lost:     lostPeers{added: make(chan struct{}, 1)},
		warn:     logLimiter{period: 30 * time.Second},
	}
	m.events.init(onEvent)

	mlc := timedConfig(cfg, joinTimeout)
	mlc.Name = name
	mlc.BindAddr = bindIP.String()
	mlc.BindPort = bindPort
	mlc.AdvertisePort = bindPort
	if cfg.Advertise != "" {
		adv := cfg.Advertise
		if _, _, err := net.SplitHostPort(adv); err != nil {
			adv = net.JoinHostPort(adv, strconv.Itoa(bindPort))
		}
		aip, aport, err := splitHostPort(adv)
		if err != nil {
			return nil, fmt.Errorf("advertise %s: %w", cfg.Advertise, err)
		}
		mlc.AdvertiseAddr = aip.String()
		mlc.AdvertisePort = aport // 0 with a system-picked bind port: memberlist sets it
	}
	mlc.SecretKey = key
	d := &delegate{m: m}
	mlc.Delegate = d
	mlc.Events = d
	mlc.Alive = d
	mlc.Merge = d
	mlc.Logger = newStdLogger(logger)

	m.wg.Add(1)
	go m.events.run(m.stop, &m.wg)

	ml, err := memberlist.Create(mlc)
	if err != nil {
		m.stopGoroutines()
		return nil, bindError(bind, err)
	}
	m.ml = ml // m.addr was set by the delegate's NotifyJoin for this node

	m.wg.Add(2)
	go m.updater()
	go m.reconnector()

	if len(cfg.Join) > 0 {
		if err := m.join(seedAddrs(cfg.Join), joinTimeout); err != nil {
			_ = ml.Shutdown()
			m.stopGoroutines()
			return nil, err
		}
	}
	return m, nil
}

// timedConfig is memberlist's configuration with the timing cfg asks for:
// the LAN profile, or Fast's, and cfg's failure detection on top. Start
// completes it; Timing reads it.
func timedConfig(cfg Config, joinTimeout time.Duration) *memberlist.Config {
	var mlc *memberlist.Config
	if cfg.Fast {
		mlc = memberlist.DefaultLocalConfig()
		fastTiming(mlc)
	} else {
		mlc = memberlist.DefaultLANConfig()
		mlc.DeadNodeReclaimTime = 30 * time.Second
	}
	// A join dial uses TCPTimeout: keep it within the join budget, but not
	// so small that push/pull on a busy machine times out.
	mlc.TCPTimeout = min(mlc.TCPTimeout, max(joinTimeout, time.Second))
	if cfg.ProbeInterval > 0 {
		mlc.ProbeInterval = cfg.ProbeInterval
		mlc.ProbeTimeout = min(mlc.ProbeTimeout, cfg.ProbeInterval/2)
	}
	if cfg.SuspicionMult > 0 {
		mlc.SuspicionMult = cfg.SuspicionMult
	}
	return mlc
}

// Timing is how often memberlist, as Start configures it, sends its own
// messages: what gossip costs a node besides the metadata it carries.
type Timing struct {
	// ProbeInterval: each node probes one other (a ping and its ack)
	// this often; ProbeTimeout is how long it waits for the ack.
	ProbeInterval, ProbeTimeout time.Duration
	// GossipInterval: while it has updates to spread, a node sends them
	// to GossipNodes others this often.
	GossipInterval time.Duration
	GossipNodes    int
	// PushPullInterval: each node exchanges its whole state with one
	// other over TCP this often (memberlist stretches it past 32 nodes).
	PushPullInterval time.Duration
	// RetransmitMult x log10(nodes+1) is how many times an update is
	// gossiped on; SuspicionMult sets the failure detection's patience
	// (Config.SuspicionMult).
	RetransmitMult, SuspicionMult int
}

// Timing returns the timing Start gives memberlist for cfg (Fast, the
// LAN profile, ProbeInterval, SuspicionMult), so that what gossip costs
// is estimated from the numbers the node runs with.
func (cfg Config) Timing() Timing {
	joinTimeout := cfg.JoinTimeout
	if joinTimeout <= 0 {
		joinTimeout = DefaultJoinTimeout
	}
	mlc := timedConfig(cfg, joinTimeout)
	return Timing{
		ProbeInterval: mlc.ProbeInterval, ProbeTimeout: mlc.ProbeTimeout,
		GossipInterval: mlc.GossipInterval, GossipNodes: mlc.GossipNodes,
		PushPullInterval: mlc.PushPullInterval,
		RetransmitMult:   mlc.RetransmitMult, SuspicionMult: mlc.SuspicionMult,
	}
}

// fastTiming sets the Fast (test/loopback) timing on top of memberlist's
// DefaultLocalConfig. With n < 10 nodes: a peer is probed at least every
// n*200 ms, a probe fails after 100 ms, the suspicion timeout is 400 ms, so
// a dead node is declared about 0.6-1.3 s after it stops.
func fastTiming(c *memberlist.Config) {
	c.ProbeInterval = 200 * time.Millisecond
	c.ProbeTimeout = 100 * time.Millisecond
	c.GossipInterval = 50 * time.Millisecond
	c.SuspicionMult = 2 // timeout 2*max(1,log10 n)*ProbeInterval; no confirmations awaited
	c.SuspicionMaxTimeoutMult = 4
	c.PushPullInterval = 5 * time.Second
	c.GossipToTheDeadTime = 2 * time.Second
	c.DeadNodeReclaimTime = time.Second
	c.AwarenessMaxMultiplier = 4
	c.TCPTimeout = 2 * time.Second
}

// join contacts each seed; unreachable seeds are retried with backoff until
// the timeout, refusals (version, key, name) end it at once.
func (m *Membership) join(seeds []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	backoff := 100 * time.Millisecond
	list := strings.Join(seeds, ", ")
	for {
		joined := false
		causes := make([]string, 0, len(seeds))
		unresolved := 0
		for _, seed := range seeds {
			n, err := m.ml.Join([]string{seed})
			if err == nil && n > 0 {
				joined = true
				continue
			}
			if err == nil {
				err = errors.New("no address")
			}
			cause, refusal := m.classify(seed, err)
			if refusal != nil {
				return fmt.Errorf("join %s: %w", seed, refusal)
			}
			if cause == noSuchHost {
				unresolved++
			}
			causes = append(causes, seed+": "+cause)
		}
		if joined && m.ml.NumMembers() > 1 {
			return nil
		}
		if joined {
			// Every seed that answered was this node: waiting longer
			// finds no one else.
			local := m.ml.LocalNode()
			self := net.JoinHostPort(local.Addr.String(), strconv.Itoa(int(local.Port)))
			return fmt.Errorf("join %s: %w (this node's gossip address is %s); give another node's gossip HOST:PORT", list, ErrSelfJoin, self)
		}
		if time.Now().Add(backoff).After(deadline) {
			detail := strings.Join(causes, "; ")
			if len(seeds) == 1 {
				detail = strings.TrimPrefix(detail, seeds[0]+": ")
			}
			if unresolved == len(seeds) {
				return fmt.Errorf("join %s: %w: %w (%s, tried for %v); check the host names in --join, or give the seeds' IP addresses",
					list, ErrNoSeed, ErrUnresolved, detail, timeout)
			}
			return fmt.Errorf("join %s: %w (%s); check --join", list, ErrNoSeed, detail)
		}
		if backoff == 100*time.Millisecond { // once
			m.log.Info("no seed answers yet; trying again", "seeds", list, "until", deadline.Format(time.TimeOnly))
		}
		t := time.NewTimer(backoff)
		<-t.C
		backoff = min(2*backoff, time.Second)
	}
}

// noSuchHost is the cause of a seed whose host name does not resolve.
const noSuchHost = "no such host"

// classify turns one memberlist Join error of seed into a short cause, or
// a refusal that retrying will not cure.
func (m *Membership) classify(seed string, err error) (cause string, refusal error) {
	msg := err.Error()
	m.rejMu.Lock()
	rej := m.lastReject
	m.rejMu.Unlock()
	if rej != nil && strings.Contains(msg, rej.Error()) {
		return "", fmt.Errorf("refused: %w", rej)
	}
	lower := strings.ToLower(msg)
	if strings.Contains(lower, "encryption is configured but remote state is not encrypted") && answersHTTP(seed) {
		// A keyed node reads no byte of another protocol's answer:
		// asked in HTTP, the seed shows what it is.
		return "", fmt.Errorf("%w: %s", ErrNotGossip, httpSeed)
	}
	for _, k := range []struct{ memberlist, says string }{
		{"remote state is encrypted and encryption is not configured", "the seed uses a cluster key and this node has none"},
		{"encryption is configured but remote state is not encrypted", "this node has a cluster key and the seed has none, or the seed is not a gossip address (a node prints its \"gossip HOST:PORT\" when it starts)"},
		{"no installed keys could decrypt", "the seed's cluster key differs from this node's"},
		{"decrypt", "the seed's cluster key differs from this node's"},
	} {
		if strings.Contains(lower, k.memberlist) {
			return "", fmt.Errorf("%w: %s; all nodes need the same cluster key (tsys: the same --key-file)", ErrKeyMismatch, k.says)
		}
	}
	if t := invalidType.FindStringSubmatch(msg); t != nil {
		// Something answered, in another protocol: its first byte is
		// the type memberlist read.
		return "", fmt.Errorf("%w: %s", ErrNotGossip, otherProtocol(t[1]))
	}
	for _, s := range []string{"connection refused", "i/o timeout", noSuchHost, "connection reset by peer", "network is unreachable", "no route to host", "EOF"} {
		if strings.Contains(msg, s) {
			return s, nil
		}
	}
	// Strip memberlist's multi-error decoration and "failed to join X: ".
	msg = strings.TrimSpace(msg)
	if i := strings.LastIndex(msg, "* "); i >= 0 {
		msg = msg[i+2:]
	}
	if strings.HasPrefix(msg, "failed to join ") {
		if i := strings.Index(msg[len("failed to join "):], ": "); i >= 0 {
			msg = msg[len("failed to join ")+i+2:]
		}
	}
	return strings.TrimSpace(msg), nil
}

// Name returns this node's name.
func (m *Membership) Name() string { return m.name }

// Addr returns the actual gossip host:port of this node.
func (m *Membership) Addr() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addr
}

// Members returns the live members, this node included, sorted by name.
func (m *Membership) Members() []Member {
	m.mu.Lock()
	out := make([]Member, 0, len(m.peers)+1)
	out = append(out, Member{Name: m.name, Gossip: m.addr, Meta: m.meta, Leaving: m.leaving})
	for _, p := range m.peers {
		out = append(out, p)
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Self returns this node with its current metadata.
func (m *Membership) Self() Member {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Member{Name: m.name, Gossip: m.addr, Meta: m.meta, Leaving: m.leaving}
}

// SetLoad updates this node's load summary and gossips it. Broadcasts are
// coalesced: at most one every 100 ms; the latest value always goes out.
// It never blocks on the network.
func (m *Membership) SetLoad(l Load) error {
	return m.setMeta(func(mt *Meta) { mt.Load = l })
}

// SetZone changes this node's zone label and gossips it.
func (m *Membership) SetZone(zone string) error {
	return m.setMeta(func(mt *Meta) { mt.Zone = zone })
}

// SetTransport changes this node's task-transport address and gossips it.
func (m *Membership) SetTransport(addr string) error {
	return m.setMeta(func(mt *Meta) { mt.Transport = addr })
}

func (m *Membership) setMeta(change func(*Meta)) error {
	if m.closed.Load() {
		return ErrClosed
	}
	m.mu.Lock()
	next := m.meta
	change(&next)
	wire, err := encodeMeta(next, m.flags())
	if err != nil {
		m.mu.Unlock()
		return err
	}
	same := bytes.Equal(wire, m.metaWire)
	m.meta, m.metaWire = next, wire
	m.mu.Unlock()
	if same {
		// Every broadcast makes memberlist re-encode the node and gossip
		// it to every peer: a node that reports the same load on every
		// tick would cost each of them, idle, a wake-up per report.
		return nil
	}
	m.changes.Add(1)
	select {
	case m.dirty <- struct{}{}:
	default:
	}
	return nil
}

// updater gossips metadata changes, at most one broadcast per
// minUpdateInterval.
func (m *Membership) updater() {
	defer m.wg.Done()
	var last time.Time
	for {
		select {
		case <-m.stop:
			return
		case <-m.dirty:
		}
		if wait := minUpdateInterval - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-m.stop:
				t.Stop()
				return
			case <-t.C:
			}
		}
		last = time.Now()
		m.bcast.Lock()
		m.mu.Lock()
		leaving := m.leaving
		m.mu.Unlock()
		if !leaving {
			// UpdateNode queues the new alive message and then waits for
			// it to be sent; do not wait (the 1 ms timeout error is
			// expected).
			_ = m.ml.UpdateNode(time.Millisecond)
		}
		m.bcast.Unlock()
	}
}

func (m *Membership) flags() byte {
	if m.leaving {
		return flagLeaving
	}
	return 0
}

// Leave announces a graceful departure and waits up to timeout (0: no
// limit) for the announcement to go out. Other nodes first see this node
// Updated with Leaving=true, then Left with Failed=false. Metadata changes
// are no longer gossiped afterwards. Call Shutdown afterwards.
//
// memberlist does not tell its event delegate whether a node left or was
// declared dead, so Leave marks this node "leaving": it tells each live
// member so directly (leavenotice.go) and gossips the mark in its
// metadata, both within half the timeout, then sends memberlist's leave. A
// peer that hears the leave before either (lost packets, a member that
// could not be reached) reports Failed=true.
func (m *Membership) Leave(timeout time.Duration) error {
	m.life.Lock()
	defer m.life.Unlock()
	if m.closed.Load() {
		return ErrClosed
	}
	start := time.Now()
	m.mu.Lock()
	if !m.leaving {
		if wire, err := encodeMeta(m.meta, flagLeaving); err == nil {
			m.leaving, m.metaWire = true, wire
		}
	}
	m.mu.Unlock()
	told := make(chan struct{})
	go func() {
		defer close(told)
		m.tellLeaving(timeout / 2) // leavenotice.go
	}()
	m.bcast.Lock()
	// Wait until the mark has been gossiped: the leave message would
	// otherwise replace it in memberlist's broadcast queue.
	_ = m.ml.UpdateNode(timeout / 2) // a timeout here is not fatal
	m.bcast.Unlock()
	<-told
	rest := time.Duration(0)
	if timeout > 0 {
		rest = max(timeout-time.Since(start), time.Millisecond)
	}
	if err := m.ml.Leave(rest); err != nil {
		return fmt.Errorf("leave: %w", err)
	}
	return nil
}

// Shutdown stops gossip without announcing it (others will declare this
// node failed; call Leave first to leave gracefully), stops this package's
// goroutines and memberlist's. No event is delivered after it returns.
// memberlist's own goroutines end asynchronously within about a probe
// interval. Safe to call more than once; must not be called from onEvent.
func (m *Membership) Shutdown() error {
	m.life.Lock()
	defer m.life.Unlock()
	if m.closed.Swap(true) {
		return nil
	}
	close(m.stop)
	err := m.ml.Shutdown()
	m.wg.Wait()
	return err
}

func (m *Membership) stopGoroutines() {
	m.closed.Store(true)
	close(m.stop)
	m.wg.Wait()
}

func (m *Membership) metaBytes() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.metaWire
}

// checkPeer tells whether a peer's metadata carries our protocol version.
func (m *Membership) checkPeer(n *memberlist.Node) error {
	var meta Meta
	if err := meta.UnmarshalBinary(n.Meta); err != nil {
		v, ok := peekVersion(n.Meta)
		return &VersionError{Node: n.Name, Addr: n.Address(), Local: m.version, Remote: v, RemoteKnown: ok, Decode: err}
	}
	if meta.Version != m.version {
		return &VersionError{Node: n.Name, Addr: n.Address(), Local: m.version, Remote: meta.Version, RemoteKnown: true}
	}
	return nil
}

func (m *Membership) refuse(n *memberlist.Node, via string, err error) {
	if m.warn.allow(n.Name + "|" + n.Address()) {
		m.log.Warn("membership: refusing node", "node", n.Name, "addr", n.Address(), "via", via, "reason", err.Error())
	}
}

func toMember(n *memberlist.Node) Member {
	mb := Member{Name: n.Name, Gossip: n.Address()}
	meta, flags, err := decodeMeta(n.Meta)
	if err == nil { // admitted nodes decode; else zero Meta
		mb.Meta, mb.Leaving = meta, flags&flagLeaving != 0
	}
	return mb
}

func splitHostPort(s string) (net.IP, int, error) {
	host, ps, err := net.SplitHostPort(s)
	if err != nil {
		return nil, 0, err
	}
	port, err := strconv.ParseUint(ps, 10, 16)
	if err != nil {
		return nil, 0, fmt.Errorf("bad port %q", ps)
	}
	if host == "" {
		return net.IPv4zero, int(port), nil
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip, int(port), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, 0, err
	}
	for _, a := range addrs {
		if a.IP.To4() != nil {
			return a.IP, int(port), nil
		}
	}
	if len(addrs) == 0 {
		return nil, 0, fmt.Errorf("no address for %q", host)
	}
	return addrs[0].IP, int(port), nil
}

func bindError(bind string, err error) error {
	msg := err.Error()
	for _, e := range []syscall.Errno{syscall.EADDRINUSE, syscall.EADDRNOTAVAIL, syscall.EACCES} {
		if strings.Contains(msg, e.Error()) {
			return fmt.Errorf("bind %s: %w", bind, e)
		}
	}
	return fmt.Errorf("bind %s: %w", bind, err)
}

func defaultName(port int) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "node"
	}
	if port != 0 {
		return host + "-" + strconv.Itoa(port)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return host + "-" + hex.EncodeToString(b[:])
}

// delegate implements memberlist's Delegate, EventDelegate, AliveDelegate and
// MergeDelegate. Event and alive callbacks run under memberlist's node lock:
// they must not call back into memberlist.
type delegate struct{ m *Membership }

func (d *delegate) NodeMeta(limit int) []byte {
	b := d.m.metaBytes()
	if len(b) > limit { // cannot happen: MarshalBinary enforces MaxMetaSize
		return nil
	}
	return b
}

// NotifyMsg takes the user messages: a member's word that it leaves.
func (d *delegate) NotifyMsg(b []byte) {
	if name, gossip, ok := readLeaveNotice(b); ok && name != d.m.name {
		d.m.heardLeaving(name, gossip, time.Now())
	}
}

func (d *delegate) GetBroadcasts(int, int) [][]byte { return nil }
func (d *delegate) LocalState(bool) []byte          { return nil }
func (d *delegate) MergeRemoteState([]byte, bool)   {}
func (d *delegate) NotifyJoin(n *memberlist.Node)   { d.event(Joined, n) }
func (d *delegate) NotifyUpdate(n *memberlist.Node) { d.event(Updated, n) }
func (d *delegate) NotifyLeave(n *memberlist.Node)  { d.event(Left, n) }

// event runs under memberlist's node lock, in the order of the changes.
func (d *delegate) event(k EventKind, n *memberlist.Node) {
	m := d.m
	mb := toMember(n)
	if n.Name == m.name {
		if k != Left {
			m.mu.Lock()
			m.addr = mb.Gossip
			m.mu.Unlock()
		}
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// A member that said it leaves (heardLeaving), even before it was
	// known, stays leaving until it is gone: gossip may still bring its
	// metadata without the mark.
	if prev, ok := m.peers[n.Name]; ok && prev.Leaving || k != Left && m.early.take(n.Name, mb.Gossip, time.Now()) {
		mb.Leaving = true
	}
	e := Event{Kind: k, Member: mb}
	if k == Left {
		e.Failed = !mb.Leaving
		delete(m.peers, n.Name)
		if e.Failed {
			m.log.Info("membership: a member was declared dead: it stopped answering without leaving", "peer", n.Name, "gossip", mb.Gossip)
		}
	} else {
		m.peers[n.Name] = mb
	}
	m.lost.note(e, time.Now())
	// Pushed under m.mu, as heardLeaving pushes: the queue's order is
	// the order of the changes to peers.
	m.events.push(e)
}

// NotifyAlive filters every alive message (gossip, push/pull, join): a peer
// speaking another protocol version never becomes a member.
func (d *delegate) NotifyAlive(n *memberlist.Node) error {
	if n.Name == d.m.name {
		return nil
	}
	if err := d.m.checkPeer(n); err != nil {
		d.m.refuse(n, "alive", err)
		return err
	}
	return nil
}

// NotifyMerge runs on both ends of a join's state exchange: refusing makes
// the joiner's memberlist.Join fail with our error text.
func (d *delegate) NotifyMerge(peers []*memberlist.Node) error {
	m := d.m
	self := m.Addr()
	for _, n := range peers {
		if n.State != memberlist.StateAlive && n.State != memberlist.StateSuspect {
			continue
		}
		var err error
		if n.Name == m.name {
			if self != "" && n.Address() != self {
				err = &nameError{Name: m.name, Addr: self, Other: n.Address()}
			}
		} else {
			err = m.checkPeer(n)
		}
		if err != nil {
			m.refuse(n, "join", err)
			m.rejMu.Lock()
			m.lastReject = err
			m.rejMu.Unlock()
			return err
		}
	}
	return nil
}

// dispatcher delivers events in order on one goroutine, decoupled from
// memberlist's locks by an unbounded queue.
type dispatcher struct {
	fn   func(Event)
	mu   sync.Mutex
	q    []Event
	wake chan struct{}
}

func (d *dispatcher) init(fn func(Event)) {
	d.fn = fn
	d.wake = make(chan struct{}, 1)
}

func (d *dispatcher) push(e Event) {
	if d.fn == nil {
		return
	}
	d.mu.Lock()
	d.q = append(d.q, e)
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *dispatcher) run(stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		select {
		case <-stop:
			return
		case <-d.wake:
		}
		for {
			d.mu.Lock()
			batch := d.q
			d.q = nil
			d.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			for _, e := range batch {
				select {
				case <-stop:
					return
				default:
				}
				d.fn(e)
			}
		}
	}
}
