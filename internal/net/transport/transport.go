package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/klauspost/compress/s2"
)

// Defaults of Config.
const (
	DefaultMaxFrame          = 64 << 20
	DefaultCompressThreshold = 4 << 10
	DefaultHandshakeTimeout  = time.Second
)

const (
	dialTimeout    = 5 * time.Second
	writeTimeout   = 30 * time.Second
	closeFlushTime = time.Second
	lingerTime     = 200 * time.Millisecond
	batchCap       = 1 << 20 // frame payload the writer aims for
	keepScratch    = 4 << 20 // buffers larger than this are not kept for reuse
	readBufSize    = 64 << 10
	maxFreeChunks  = 2
	maxSpareChunks = 64      // a pending queue's backing array kept for reuse
	maxMaxFrame    = 1 << 30 // MaxFrame is cut to this
)

// directMax bounds the message a Send writes itself (writeDirect): a
// steal, an answer, a result; a larger one is compressed and written by
// the writer goroutine, not on the sender's.
const directMax = 4 << 10

// directGap is how long a connection must have written nothing for a
// Send to write itself: a Send that follows a write more closely is part
// of a burst, which the writer goroutine batches into frames (TestBatching)
// for fewer writes than one each. A round trip on loopback takes longer
// (BenchmarkRoundTrip), so a request and its answer are written directly.
const directGap = 10 * time.Microsecond

// dialHandshakeTimeout bounds the handshake of a connection this node
// dialled: no stranger holds those, so it waits for a loaded peer as long
// as for the dial and more.
const dialHandshakeTimeout = 10 * time.Second

// Config configures a Transport. Only Name, Bind and Key are usually set.
type Config struct {
	// Name is this node's name, sent in the handshake and given to the
	// peer's Handler as from. At most MaxStringLen bytes; default: the
	// address the transport listens on.
	Name string
	// Bind is the address to listen on; default "127.0.0.1:0".
	Bind string
	// Key is the cluster key every node shares. Nil (or empty) means no
	// authentication: then Listen refuses any non-loopback address, and
	// the node accepts only keyless peers. With a key the node accepts
	// only peers that prove they hold the same key.
	Key []byte
	// CompressThreshold is the frame payload size in bytes from which
	// the writer compresses a frame with s2 (kept only when it saves at
	// least 1/8). 0 means DefaultCompressThreshold; negative: never
	// compress.
	CompressThreshold int
	// MaxFrame bounds a frame's payload, compressed or not, and so
	// the encoded size of one message; default DefaultMaxFrame, at most
	// 1 GiB. All nodes should use the same value: a node drops a
	// connection that sends it a frame over its own limit.
	MaxFrame int
	// MaxQueue bounds the bytes queued for one peer and not yet taken by
	// its writer; past it Send fails with ErrQueueFull. Default 4*MaxFrame.
	MaxQueue int
	// HandshakeTimeout bounds how long an inbound connection may take to
	// send its Hello, and then its Auth (see the package documentation,
	// "Handshake"); default DefaultHandshakeTimeout. A dialled
	// connection's handshake waits for the larger of this and 10 s.
	HandshakeTimeout time.Duration
	// Logger gets connection events and errors; default slog.Default().
	Logger *slog.Logger

	// Members, when set, is the cluster's membership: a connection whose
	// Hello names a member, from that member's address, is admitted
	// ahead of unknown ones (see Members). Nil: connections are admitted
	// by progress alone (see the package documentation, "Strangers").
	Members Members

	// now is the clock of the lines' buckets (LimitedLog) and of the
	// gap before a Send may write itself (directGap); default time.Now.
	// Tests inject theirs.
	now func() time.Time
}

// Handler receives every message from peers, in the order each peer sent
// them, on the reader goroutine of the peer's connection. It must not block
// for long: the peer's later messages wait behind it, and a peer whose
// writes stall for 30 s drops the connection and what it had queued. It may
// call Send and SendSync, not Close. The message and the slices in it
// belong to the handler (nothing reuses them), but note that they share the
// memory of their frame.
type Handler func(from string, m *Message)

// Errors of Send and SendSync.
var (
	ErrClosed    = errors.New("transport closed")
	ErrQueueFull = errors.New("send queue full")
)

// Stats are the counters of a Transport since Listen.
type Stats struct {
	BytesSent        uint64 // frame bytes written, headers included
	MessagesSent     uint64
	FramesSent       uint64
	CompressedFrames uint64 // frames sent compressed
	BytesReceived    uint64 // frame bytes read, headers included
	MessagesReceived uint64
	FramesReceived   uint64
	RejectedConns    uint64 // inbound connections refused by the handshake
	OverBudgetConns  uint64 // inbound connections refused before the handshake (their source, or the node, had too many in it), or closed idle in it to admit a newer one
	DialFailures     uint64 // outbound connections that failed to dial or in the handshake
	ProtocolErrors   uint64 // established connections closed for a bad frame or message
	DroppedMessages  uint64 // messages queued on a connection that failed before writing them
}

type counters struct {
	bytesSent, messagesSent, framesSent, compressedFrames        atomic.Uint64
	bytesReceived, messagesReceived, framesReceived              atomic.Uint64
	rejectedConns, dialFailures, protocolErrors, droppedMessages atomic.Uint64
	overBudgetConns                                              atomic.Uint64
	directFrames                                                 atomic.Uint64 // written whole by their Send (writeDirect), for the tests
	directTails                                                  atomic.Uint64 // begun by their Send, finished by the writer goroutine
}

// Transport moves messages between nodes; see the package documentation.
// All its methods are safe for concurrent use.
type Transport struct {
	cfg Config
	h   Handler
	log *slog.Logger
	ln  net.Listener

	lim LimitedLog // every line a stranger can cause
	// refusals is lim for the lines that refuse a connection, whatever
	// the reason: one kind, one bucket (refusalKind).
	refusals LimitedLog

	ctx    context.Context // cancelled by Close: interrupts dials and handshakes
	cancel context.CancelFunc
	wg     sync.WaitGroup
	budget *budget // inbound handshakes by source

	mu     sync.Mutex
	closed bool
	out    map[string]*conn // outbound connections by dialled address
	conns  map[*conn]struct{}
	routes map[uint64]*conn // connections past their handshake, by route (ReplyAddr)
	route  uint64           // the last route given

	st counters
}

// ErrNoKey is wrapped by Listen's error when Config.Key is empty and
// Config.Bind is not a loopback address: messages would travel in the
// clear, and anyone could send tasks.
var ErrNoKey = errors.New("no cluster key")

// Listen starts a transport listening on cfg.Bind, calling h for every
// message received.
func Listen(cfg Config, h Handler) (*Transport, error) {
	if h == nil {
		return nil, errors.New("transport: nil Handler")
	}
	if cfg.Bind == "" {
		cfg.Bind = "127.0.0.1:0"
	}
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = DefaultMaxFrame
	}
	cfg.MaxFrame = min(cfg.MaxFrame, maxMaxFrame)
	if cfg.CompressThreshold == 0 {
		cfg.CompressThreshold = DefaultCompressThreshold
	}
	if cfg.MaxQueue <= 0 {
		cfg.MaxQueue = 4 * cfg.MaxFrame
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if len(cfg.Name) > maxNameLen {
		return nil, fmt.Errorf("transport: node name of %d bytes exceeds %d", len(cfg.Name), maxNameLen)
	}
	if len(cfg.Key) == 0 {
		cfg.Key = nil
		if host, _, err := net.SplitHostPort(cfg.Bind); err == nil && !loopbackHost(host) {
			return nil, fmt.Errorf("listen %s: %w: refusing to listen on a non-loopback address without one (give it one: Config.Key, or --key-file on the tsys command; or bind to 127.0.0.1)", cfg.Bind, ErrNoKey)
		}
	} else {
		cfg.Key = append([]byte(nil), cfg.Key...)
	}
	ln, err := net.Listen("tcp", cfg.Bind)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", cfg.Bind, innerNetErr(err))
	}
	if cfg.Key == nil {
		if a, ok := ln.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
			ln.Close()
			return nil, fmt.Errorf("listen %s: %w: it resolves to non-loopback %s, and listening there needs one (give it one: Config.Key, or --key-file on the tsys command; or bind to 127.0.0.1)", cfg.Bind, ErrNoKey, ln.Addr())
		}
	}
	if cfg.Name == "" {
		cfg.Name = ln.Addr().String()
	}
	t := &Transport{
		cfg:    cfg,
		h:      h,
		log:    cfg.Logger.With("node", cfg.Name),
		ln:     ln,
		budget: newBudget(fileLimit(), cfg.HandshakeTimeout/4),
		out:    make(map[string]*conn),
		conns:  make(map[*conn]struct{}),
		routes: make(map[uint64]*conn),
	}
	t.lim = NewLimitedLog(t.log)
	if cfg.now != nil {
		t.lim.b.now = cfg.now
	}
	t.refusals = t.lim.OfKind(refusalKind)
	if m := cfg.Members; m != nil {
		t.budget.member = func(nc net.Conn) bool { return memberHello(m, nc) }
	}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	t.wg.Add(1)
	go t.acceptLoop()
	return t, nil
}

// loopbackHost reports whether host names only loopback addresses: a
// loopback IP literal or "localhost". Other names are checked after
// listening, on the address actually bound.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return true // a name: decided once bound
	}
	return ip.IsLoopback()
}

// innerNetErr strips the "listen tcp" and "bind" layers of a net error so
// that the wrapped text reads "listen ADDR: address already in use".
func innerNetErr(err error) error {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe.Err
	}
	return err
}

// now is the transport's clock: Config.now, or time.Now.
func (t *Transport) now() time.Time {
	if t.cfg.now != nil {
		return t.cfg.now()
	}
	return time.Now()
}

// Addr returns the host:port the transport listens on.
func (t *Transport) Addr() string { return t.ln.Addr().String() }

// Name returns this node's name as sent in the handshake.
func (t *Transport) Name() string { return t.cfg.Name }

// Stats returns a snapshot of the counters.
func (t *Transport) Stats() Stats {
	s := &t.st
	return Stats{
		BytesSent:        s.bytesSent.Load(),
		MessagesSent:     s.messagesSent.Load(),
		FramesSent:       s.framesSent.Load(),
		CompressedFrames: s.compressedFrames.Load(),
		BytesReceived:    s.bytesReceived.Load(),
		MessagesReceived: s.messagesReceived.Load(),
		FramesReceived:   s.framesReceived.Load(),
		RejectedConns:    s.rejectedConns.Load(),
		OverBudgetConns:  s.overBudgetConns.Load(),
		DialFailures:     s.dialFailures.Load(),
		ProtocolErrors:   s.protocolErrors.Load(),
		DroppedMessages:  s.droppedMessages.Load(),
	}
}

// Send queues m for the peer listening at addr and returns at once; m may be
// reused as soon as Send returns (it is encoded right away). The connection
// is dialled on first use and kept. Messages to one addr are written in the
// order of the Send calls. Send fails only if m is invalid (see
// Message.Validate, MaxFrame), the transport is closed, or the peer's queue
// is full. Failures after queuing (dial, handshake, write) are logged and
// counted in Stats, the messages queued on that connection are dropped,
// and the next Send to addr dials again.
func (t *Transport) Send(addr string, m *Message) error {
	return t.send(addr, m, nil)
}

// SendSync is Send that waits until m has been written to the connection
// (not until the peer has handled it), dialling first if needed. It returns
// the dial, handshake or write error, e.g. a *VersionError or an error
// wrapping ErrKeyMismatch or ErrAuthMode; or the error that ended the
// connection m was queued on, if it died first (say "connection to ADDR:
// EOF" when the peer had just closed it: a second call dials anew).
func (t *Transport) SendSync(addr string, m *Message) error {
	done := make(chan error, 1)
	if err := t.send(addr, m, done); err != nil {
		return err
	}
	return <-done
}

func (t *Transport) send(addr string, m *Message, done chan error) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if id, ok := parseRoute(addr); ok {
		return t.sendRoute(id, m, done)
	}
	for {
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			return ErrClosed
		}
		c := t.out[addr]
		if c == nil {
			// queue before the writer starts, so that a dial failing at
			// once drops the message rather than failing the enqueue
			c = t.newConn(addr, true)
			if err := c.enqueue(m, done); err != nil {
				delete(t.conns, c)
				t.mu.Unlock()
				return err
			}
			t.out[addr] = c
			t.wg.Add(1)
			go c.runOutbound()
			t.mu.Unlock()
			return nil
		}
		t.mu.Unlock()
		// A conn that died since the lookup has left t.out by now: try
		// again with a fresh one.
		if err := c.enqueue(m, done); err != errConnDead {
			return err
		}
	}
}

var errConnDead = errors.New("connection dead")

// Close stops the listener, flushes what is queued on established outbound
// connections (for at most a second), closes every connection and waits
// for all goroutines of the transport. Sends after Close fail with
// ErrClosed. Close must not be called from a Handler.
func (t *Transport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	conns := make([]*conn, 0, len(t.conns))
	for c := range t.conns {
		conns = append(conns, c)
	}
	t.mu.Unlock()

	t.cancel()
	err := t.ln.Close()
	for _, nc := range t.budget.close() {
		nc.Close()
	}
	for _, c := range conns {
		if c.outbound {
			c.closeOnce.Do(func() { close(c.closing) })
		} else {
			c.shutdown(ErrClosed)
		}
	}
	// Writers flush for at most closeFlushTime; one stuck in a write to
	// a peer that does not read is cut off a little later.
	done := make(chan struct{})
	go func() {
		t.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(closeFlushTime + closeFlushTime/2):
		for _, c := range conns {
			c.shutdown(ErrClosed)
		}
		<-done
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

func (t *Transport) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

func (t *Transport) acceptLoop() {
	defer t.wg.Done()
	var backoff time.Duration
	for {
		nc, err := t.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || t.isClosed() {
				return
			}
			// e.g. out of file descriptors: wait and retry
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			t.lim.Warn("transport: accept failed", "err", err, "retry_in", backoff)
			select {
			case <-time.After(backoff):
			case <-t.ctx.Done():
				return
			}
			continue
		}
		backoff = 0
		key := sourceKey(nc.RemoteAddr())
		a, victim, promoted := t.budget.admit(key, nc, time.Now())
		if victim != nil {
			t.evict(victim)
		}
		if promoted != nil && !t.startInbound(promoted, key) {
			return
		}
		switch a {
		case admitStart:
			if !t.startInbound(nc, key) {
				return
			}
		case admitParked:
		case refuseClosed:
			nc.Close()
			return
		default:
			t.refuseOverBudget(nc, a)
		}
	}
}

// startInbound starts the handshake of nc, an inbound connection from
// source key that holds a slot of the budget. It returns false, closing
// nc, if the transport is closing.
func (t *Transport) startInbound(nc net.Conn, key string) bool {
	tuneAccepted(nc)
	c := t.newConn(nc.RemoteAddr().String(), false)
	c.nc = nc
	c.source = key
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		nc.Close() // its slot is the caller's to give back, or the closing budget's
		return false
	}
	t.conns[c] = struct{}{}
	t.wg.Add(1)
	t.mu.Unlock()
	go c.serveInbound()
	return true
}

// handshakeDone gives back the budget slot of nc, an inbound handshake
// from source key, starting the parked connection of that source the
// budget picks, if any, in its place.
func (t *Transport) handshakeDone(key string, nc net.Conn) {
	for next := t.budget.done(key, nc, time.Now()); next != nil; next = t.budget.done(key, nc, time.Now()) {
		if t.startInbound(next, key) {
			return
		}
		nc = next
	}
}

// refuseOverBudget refuses a connection the budget has no room for: it is
// reset rather than closed, so that neither side keeps its socket in
// TIME_WAIT, counted, and logged at a bounded rate.
func (t *Transport) refuseOverBudget(nc net.Conn, a admission) {
	t.st.overBudgetConns.Add(1)
	msg, limit := "transport: refused connection: its address has too many connections in the handshake", perSourceHandshakes+t.budget.parkPerSource
	if a == refuseTotal {
		msg, limit = "transport: refused connection: too many connections in the handshake", maxHandshakes
	}
	t.refusals.Warn(msg, "peer_addr", nc.RemoteAddr().String(), "limit", limit)
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	nc.Close()
}

// chunk is a frame in the making: a reserved header followed by encoded
// messages.
type chunk struct {
	b       []byte
	msgs    int
	waiters []chan error
}

// conn is one TCP connection to a peer. An outbound conn (dialled by Send)
// has a writer goroutine (which dials, runs the handshake and writes
// frames) and a reader goroutine; an inbound conn a reader, and once its
// handshake is done a writer for the replies sent to its route
// (ReplyAddr). Messages are delivered from both kinds.
type conn struct {
	t        *Transport
	addr     string // dialled address, or the remote address of an inbound conn
	outbound bool
	br       *bufio.Reader
	peer     string // peer name, set by the handshake before the reader starts
	// send seals the frames written, recv opens those read, on a
	// connection with a cluster key (set by the handshake, nil without a
	// key).
	send, recv *sealer
	source     string // an inbound conn's budget key (sourceKey)
	route      uint64 // set once the handshake is done (see ReplyAddr)

	mu      sync.Mutex
	nc      net.Conn // nil until dialled
	pending []*chunk
	queued  int
	dead    bool
	free    []*chunk // written chunks for reuse
	// spare is the writer's last batch, emptied, for pending to take
	// next: a message queued on an idle connection then allocates
	// nothing (BenchmarkRoundTrip's allocs/op).
	spare []*chunk
	// writing: a writer holds the socket, the writer goroutine's flush
	// or a Send writing its message itself (writeDirect); idle is
	// signalled when it lets go. direct: the writer goroutine runs, past
	// the handshake, and the socket takes a write that does not wait
	// (raw), so that a Send may write itself. partial is the unwritten
	// tail of a frame a Send began, of chunk partialCh, which the writer
	// goroutine writes before anything else.
	writing   bool
	idle      sync.Cond
	direct    bool
	raw       *tryWriter
	partial   []byte
	partialCh *chunk
	partialOf struct {
		n     int
		flags byte
	} // the whole frame of partial, for Stats
	lastWrite time.Time // when a writer last let go of the socket

	wake      chan struct{} // a message was queued (capacity 1)
	closing   chan struct{} // Close: flush and stop
	closeOnce sync.Once
	stop      chan struct{} // the conn is dead
	stopOnce  sync.Once

	cbuf []byte // writer's compression buffer
}

func (t *Transport) newConn(addr string, outbound bool) *conn {
	c := &conn{
		t:        t,
		addr:     addr,
		outbound: outbound,
		wake:     make(chan struct{}, 1),
		closing:  make(chan struct{}),
		stop:     make(chan struct{}),
	}
	c.idle.L = &c.mu
	if outbound {
		t.conns[c] = struct{}{}
	}
	return c
}

func (c *conn) logger() *slog.Logger {
	l := c.t.log.With("peer_addr", c.addr)
	if c.peer != "" {
		l = l.With("peer", c.peer)
	}
	return l
}

// limited is logger for the lines a stranger can cause (LimitedLog).
func (c *conn) limited() LimitedLog {
	if c.peer != "" {
		return c.t.lim.With("peer_addr", c.addr, "peer", c.peer)
	}
	return c.t.lim.With("peer_addr", c.addr)
}

// enqueue encodes m onto the pending frames, or returns errConnDead. A
// message that finds the connection idle is written at once on the
// caller's goroutine (writeDirect), without waking the writer's.
func (c *conn) enqueue(m *Message, done chan error) error {
	ch, err := c.queue(m, done)
	if ch != nil {
		c.writeDirect(ch)
	}
	return err
}

// queue encodes m onto the pending frames, or returns errConnDead. It
// returns the chunk of m, taken off the queue, when the caller is to write
// it itself: m is alone in it, no writer holds the socket and no one waits
// for the write (SendSync keeps to the writer goroutine).
func (c *conn) queue(m *Message, done chan error) (direct *chunk, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return nil, errConnDead
	}
	if c.queued >= c.t.cfg.MaxQueue {
		return nil, fmt.Errorf("send to %s: %w (%d bytes waiting)", c.addr, ErrQueueFull, c.queued)
	}
	maxFrame := c.t.cfg.MaxFrame
	var ch *chunk
	if n := len(c.pending); n > 0 && len(c.pending[n-1].b)-headerLen < min(batchCap, maxFrame) {
		ch = c.pending[n-1]
	} else {
		ch = c.newChunk()
		c.pending = append(c.pending, ch)
	}
	start := len(ch.b)
	ch.b = AppendMessage(ch.b, m)
	size := len(ch.b) - start
	if size > maxFrame {
		ch.b = ch.b[:start]
		if ch.msgs == 0 {
			c.pending = c.pending[:len(c.pending)-1]
		}
		return nil, fmt.Errorf("transport: %v message of %d bytes exceeds MaxFrame %d", m.Type, size, maxFrame)
	}
	if over := len(ch.b) - headerLen; ch.msgs > 0 && (over > maxFrame || over > batchCap && size > batchCap/16) {
		// A large message that does not fit the current frame (or
		// not within batchCap): move it into one of its own. A small
		// one may overshoot batchCap.
		nch := &chunk{b: make([]byte, headerLen, headerLen+size)}
		nch.b = append(nch.b, ch.b[start:]...)
		ch.b = ch.b[:start]
		c.pending = append(c.pending, nch)
		ch = nch
	}
	ch.msgs++
	if done != nil {
		ch.waiters = append(ch.waiters, done)
	}
	c.queued += size
	if c.direct && !c.writing && c.partial == nil && done == nil && len(c.pending) == 1 && ch.msgs == 1 && size <= directMax &&
		c.t.now().Sub(c.lastWrite) >= directGap {
		c.pending[0] = nil
		c.pending = c.pending[:0]
		c.queued = 0
		c.writing = true
		return ch, nil
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return nil, nil
}

// writeDirect writes ch, which the caller holds the socket for (queue),
// with one write that does not wait: a socket with room for the frame
// takes it whole, and the tail that does not fit, if any, is left to the
// writer goroutine. A failed write shuts the connection down, as the
// writer's does.
func (c *conn) writeDirect(ch *chunk) {
	out, flags, err := c.frame(ch)
	n := 0
	if err == nil {
		n, err = c.raw.write(out)
	}
	c.mu.Lock()
	c.writing = false
	c.lastWrite = c.t.now()
	if err == nil && n < len(out) {
		c.partial, c.partialCh = out[n:], ch
		c.partialOf.n, c.partialOf.flags = len(out), flags
		c.t.st.directTails.Add(1)
	}
	wake := len(c.pending) > 0 || c.partial != nil
	c.idle.Broadcast()
	c.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("write to %s: %w", c.addr, err)
		if !isStopped(c.stop) {
			c.limited().Warn("transport: write failed, connection closed", "err", err)
		}
		c.t.st.droppedMessages.Add(uint64(ch.msgs))
		c.shutdown(err)
		return
	}
	if n == len(out) {
		c.count(len(out), ch.msgs, flags)
		c.t.st.directFrames.Add(1)
		c.recycle(ch)
	}
	if wake {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// newChunk returns a free chunk, or a new one: small when the queue is
// empty, of a full frame's capacity when a backlog builds up.
func (c *conn) newChunk() *chunk {
	if n := len(c.free); n > 0 {
		ch := c.free[n-1]
		c.free = c.free[:n-1]
		return ch
	}
	size := 4 << 10
	if len(c.pending) > 0 {
		size = min(batchCap, c.t.cfg.MaxFrame) + 64
	}
	return &chunk{b: make([]byte, headerLen, headerLen+size)}
}

// recycle keeps a few written chunks for reuse.
func (c *conn) recycle(ch *chunk) {
	if cap(ch.b) > keepScratch {
		return
	}
	ch.b = ch.b[:headerLen]
	ch.msgs = 0
	clear(ch.waiters)
	ch.waiters = ch.waiters[:0]
	c.mu.Lock()
	if len(c.free) < maxFreeChunks {
		c.free = append(c.free, ch)
	}
	c.mu.Unlock()
}

// keepSpare keeps batch, written, as the next pending queue's backing
// array, unless it grew large in a backlog.
func (c *conn) keepSpare(batch []*chunk) {
	if cap(batch) > maxSpareChunks {
		return
	}
	clear(batch)
	c.mu.Lock()
	if !c.dead && c.spare == nil {
		c.spare = batch[:0]
	}
	c.mu.Unlock()
}

// shutdown marks the conn dead with err (once): it leaves the transport's
// maps (so the next Send dials anew), closes the socket, and fails and
// drops what is queued.
func (c *conn) shutdown(err error) {
	c.stopOnce.Do(func() {
		t := c.t
		t.mu.Lock()
		if c.outbound && t.out[c.addr] == c {
			delete(t.out, c.addr)
		}
		delete(t.conns, c)
		if c.route != 0 {
			delete(t.routes, c.route)
		}
		t.mu.Unlock()

		c.mu.Lock()
		c.dead = true
		pending := c.pending
		if c.partialCh != nil {
			pending = append([]*chunk{c.partialCh}, pending...)
		}
		c.pending, c.partial, c.partialCh = nil, nil, nil
		c.queued = 0
		nc := c.nc
		c.mu.Unlock()

		close(c.stop)
		if nc != nil {
			nc.Close()
		}
		failChunks(t, pending, err)
	})
}

func failChunks(t *Transport, chs []*chunk, err error) {
	for _, ch := range chs {
		t.st.droppedMessages.Add(uint64(ch.msgs))
		for _, w := range ch.waiters {
			w <- err
		}
	}
}

// runOutbound is the writer goroutine of an outbound conn: dial, handshake,
// start the reader, then write frames until the conn dies or Close.
func (c *conn) runOutbound() {
	t := c.t
	defer t.wg.Done()
	nc, err := dialer().DialContext(t.ctx, "tcp", c.addr)
	if err != nil {
		if t.ctx.Err() != nil {
			c.shutdown(ErrClosed)
			return
		}
		t.st.dialFailures.Add(1)
		err = fmt.Errorf("dial %s: %w", c.addr, innerNetErr(err))
		c.limited().Warn("transport: dial failed", "err", err)
		c.shutdown(err)
		return
	}
	c.mu.Lock()
	c.nc = nc
	c.mu.Unlock()
	c.br = bufio.NewReaderSize(nc, readBufSize)
	peer, sess, err := t.handshake(nc, c.br, roleDialer)
	c.peer, c.send, c.recv = peer, sess.send, sess.recv
	if err != nil {
		if t.ctx.Err() != nil {
			c.shutdown(ErrClosed)
			return
		}
		t.st.dialFailures.Add(1)
		err = fmt.Errorf("handshake with %s: %w", c.addr, err)
		c.limited().Warn("transport: connection refused by handshake", "err", err)
		lingerClose(nc)
		c.shutdown(err)
		return
	}
	c.logger().Debug("transport: connected")
	c.serveLoops(c.writeLoop, c.readLoop)
}

// serveLoops runs a connection whose handshake is done: routed, so that
// replies may go back on it (ReplyAddr), with one loop on the calling
// goroutine, which owns the conn, and the other on one of the transport's.
// A dialled conn writes on its own goroutine; an accepted one reads there
// and writes only the replies it is given.
func (c *conn) serveLoops(here, there func()) {
	t := c.t
	if !t.addRoute(c) {
		c.shutdown(ErrClosed)
		return
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		there()
	}()
	here()
}

// lingerClose half-closes nc and drains what the peer still sends for a
// moment before closing, so that the peer reads our last frame (say, a
// Hello that tells it our version) rather than a connection reset.
func lingerClose(nc net.Conn) {
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	nc.SetReadDeadline(time.Now().Add(lingerTime))
	io.CopyN(io.Discard, nc, 1<<16)
	nc.Close()
}

func (c *conn) writeLoop() {
	c.allowDirect()
	for {
		select {
		case <-c.wake:
		case <-c.closing:
			if err := c.flush(closeFlushTime); err != nil {
				c.limited().Warn("transport: flush on close failed", "err", err)
			}
			c.shutdown(ErrClosed)
			return
		case <-c.stop:
			return
		}
		if err := c.flush(writeTimeout); err != nil {
			if !isStopped(c.stop) {
				c.limited().Warn("transport: write failed, connection closed", "err", err)
			}
			c.shutdown(err)
			return
		}
	}
}

func isStopped(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// allowDirect lets Sends write themselves (writeDirect) on a connection
// whose socket can take a write that does not wait.
func (c *conn) allowDirect() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc == nil {
		return
	}
	if sc, ok := c.nc.(syscall.Conn); ok && canTryWrite {
		if raw, err := sc.SyscallConn(); err == nil {
			c.raw, c.direct = newTryWriter(raw), true
		}
	}
}

// flush writes the tail a Send left, then every pending chunk, one frame
// each. It waits for a Send that is writing to be done.
func (c *conn) flush(timeout time.Duration) error {
	c.mu.Lock()
	for c.writing {
		c.idle.Wait()
	}
	batch := c.pending
	c.pending, c.spare = c.spare, nil
	c.queued = 0
	partial, pch, whole := c.partial, c.partialCh, c.partialOf
	c.partial, c.partialCh = nil, nil
	c.writing = true
	nc := c.nc
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.writing = false
		c.lastWrite = c.t.now()
		c.idle.Broadcast()
		c.mu.Unlock()
	}()
	if pch != nil {
		if err := c.writeFrame(nc, partial, timeout); err != nil {
			err = fmt.Errorf("write to %s: %w", c.addr, err)
			failChunks(c.t, append([]*chunk{pch}, batch...), err)
			return err
		}
		c.count(whole.n, pch.msgs, whole.flags)
		c.recycle(pch)
	}
	for i, ch := range batch {
		if err := c.writeChunk(nc, ch, timeout); err != nil {
			err = fmt.Errorf("write to %s: %w", c.addr, err)
			failChunks(c.t, batch[i:], err)
			return err
		}
		for _, w := range ch.waiters {
			w <- nil
		}
		c.recycle(ch)
	}
	c.keepSpare(batch)
	return nil
}

func (c *conn) writeChunk(nc net.Conn, ch *chunk, timeout time.Duration) error {
	out, flags, err := c.frame(ch)
	if err != nil {
		return err
	}
	err = c.writeFrame(nc, out, timeout)
	if cap(c.cbuf) > keepScratch {
		c.cbuf = nil
	}
	if err != nil {
		return err
	}
	c.count(len(out), ch.msgs, flags)
	return nil
}

// writeFrame writes out whole, or fails, within timeout.
func (c *conn) writeFrame(nc net.Conn, out []byte, timeout time.Duration) error {
	if err := nc.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	_, err := nc.Write(out)
	return err
}

// count counts a frame of n bytes written, of msgs messages.
func (c *conn) count(n, msgs int, flags byte) {
	t := c.t
	t.st.bytesSent.Add(uint64(n))
	t.st.framesSent.Add(1)
	t.st.messagesSent.Add(uint64(msgs))
	if flags&flagCompressed != 0 {
		t.st.compressedFrames.Add(1)
	}
}

// frame makes ch into the frame to write: its header filled in,
// compressed if that pays, sealed on a keyed connection. The frame is
// ch's memory or the writer's compression buffer, which the caller's
// holding the socket (writing) keeps to itself until it is written.
func (c *conn) frame(ch *chunk) ([]byte, byte, error) {
	t := c.t
	var tag int // room for a seal's tag
	if c.send != nil {
		tag = sealTagLen
		ch.b = slices.Grow(ch.b, tag)
	}
	payload := ch.b[headerLen:]
	out := ch.b
	var flags byte
	if th := t.cfg.CompressThreshold; th >= 0 && len(payload) >= th {
		need := headerLen + s2.MaxEncodedLen(len(payload)) + tag
		if cap(c.cbuf) < need {
			c.cbuf = make([]byte, need)
		}
		z := s2.Encode(c.cbuf[headerLen:need-tag], payload)
		if len(z) <= len(payload)-len(payload)/8 {
			out = c.cbuf[:headerLen+len(z)]
			flags = flagCompressed
		}
	}
	if c.send == nil {
		putHeader(out, flags, len(out)-headerLen)
	} else {
		flags |= flagSealed
		putHeader(out, flags, len(out)-headerLen+sealTagLen)
		var err error
		if out, err = c.send.seal(out); err != nil {
			return nil, 0, err
		}
	}
	return out, flags, nil
}

// serveInbound runs the handshake of an accepted connection, then reads
// its frames.
func (c *conn) serveInbound() {
	t := c.t
	defer t.wg.Done()
	pr := &progressReader{Reader: c.nc, progress: func() { t.budget.progress(c.source, c.nc, time.Now()) }}
	c.br = bufio.NewReaderSize(pr, readBufSize)
	peer, sess, err := t.handshake(c.nc, c.br, roleAcceptor)
	pr.off = true
	c.peer, c.send, c.recv = peer, sess.send, sess.recv
	if err != nil {
		if t.isClosed() {
			c.shutdown(ErrClosed)
			t.handshakeDone(c.source, c.nc)
			return
		}
		if t.budget.wasEvicted(c.nc) { // counted and logged by evict
			c.shutdown(err)
			t.handshakeDone(c.source, c.nc)
			return
		}
		t.st.rejectedConns.Add(1)
		c.limited().OfKind(refusalKind).Warn(refusalKind, "err", err)
		// The linger is within the budget: a refused source cannot
		// make the node hold more sockets by being refused.
		lingerClose(c.nc)
		c.shutdown(err)
		t.handshakeDone(c.source, c.nc)
		return
	}
	t.handshakeDone(c.source, c.nc)
	c.logger().Debug("transport: accepted connection")
	c.serveLoops(c.readLoop, c.writeLoop)
}

// readLoop reads frames and hands their messages to the Handler until the
// connection fails; then it shuts the conn down.
func (c *conn) readLoop() {
	t := c.t
	var scratch frameScratch
	for {
		p, wire, err := readFrame(c.br, t.cfg.MaxFrame, &scratch, c.recv)
		if cap(scratch.z) > keepScratch {
			scratch.z = nil
		}
		if err == nil {
			t.st.framesReceived.Add(1)
			t.st.bytesReceived.Add(uint64(wire))
			_, err = decodeBatch(p, func(m *Message) error {
				if m.Type < FirstUserType {
					return protoErr("%v message after the handshake", m.Type)
				}
				t.st.messagesReceived.Add(1)
				m.via = c.route
				t.h(c.peer, m)
				return nil
			})
		}
		if err == nil {
			continue
		}
		quiet := isStopped(c.stop) || t.isClosed() // we closed it
		bad := errors.Is(err, ErrProtocol) || errors.As(err, new(*VersionError))
		if bad && !quiet {
			t.st.protocolErrors.Add(1)
		}
		c.shutdown(fmt.Errorf("connection to %s: %w", c.addr, err))
		switch {
		case quiet:
		case errors.Is(err, io.EOF):
			c.logger().Debug("transport: peer closed the connection")
		case bad:
			c.limited().Warn("transport: closing connection: bad data from peer", "err", err)
		default:
			c.limited().Info("transport: connection lost", "err", err)
		}
		return
	}
}
