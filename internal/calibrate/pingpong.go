package calibrate

import (
	"context"
	"fmt"
	"github.com/tsys-go/tsys/internal/median"
	"math/rand/v2"
	"time"
)

// PingConfig says how PingPong measures; DefaultPingConfig gives every
// field. PingPong refuses a config it cannot measure with rather than
// guessing what was meant.
type PingConfig struct {
	// Sizes are the payload sizes in bytes, two different ones at least,
	// each up to MaxPingSize. Payloads are random bytes: the transport
	// compresses a frame above a threshold, and a compressible payload
	// would measure s2 rather than the link.
	Sizes []int
	// Rounds is how many round trips of each size to time, at most (1 at
	// least).
	Rounds int
	// Budget stops the rounds early once this much time has gone on them,
	// after minRounds of each size (or Rounds, if fewer); 0 runs every
	// round. A budget keeps calibration short on a slow or loaded machine,
	// where a fixed count would take as long as the load makes it.
	Budget time.Duration
	// Timeout is the longest one echo may take (the first, which sets up
	// the connections, gets setupRounds times more). Seconds, not
	// milliseconds: on a loaded machine a process may wait that long for
	// a core, and a calibration that fails then helps nobody.
	Timeout time.Duration
	// Key is the cluster key: nil measures the plain path, a key the
	// sealed one (authenticated handshake, every frame encrypted), as a
	// keyed cluster runs.
	Key []byte
}

// MaxPingSize bounds a payload: the line is fitted long before, and a
// larger one only costs memory and time.
const MaxPingSize = 16 << 20

// minRounds is how many round trips of each size a Budget leaves at least:
// enough for a median that a few preempted rounds do not move.
const minRounds = 7

// setupRounds: the first exchange dials, handshakes and, with a key,
// derives keys on both sides, and gets this many Timeouts.
const setupRounds = 3

// DefaultPingConfig measures 0 B, 1 KiB, 16 KiB and 256 KiB, for about
// half a second, with 5 s for an echo: sizes from a steal request to a
// batch of tasks or a tile, past the transport's compression threshold.
func DefaultPingConfig() PingConfig {
	return PingConfig{
		Sizes:   []int{0, 1 << 10, 16 << 10, 256 << 10},
		Rounds:  1000,
		Budget:  500 * time.Millisecond,
		Timeout: 5 * time.Second,
	}
}

// check says what is wrong with c, or nil.
func (c PingConfig) check() error {
	if c.Rounds < 1 {
		return fmt.Errorf("calibrate: PingConfig.Rounds is %d: want 1 round trip of each size at least (DefaultPingConfig has %d)", c.Rounds, DefaultPingConfig().Rounds)
	}
	if c.Timeout <= 0 {
		return fmt.Errorf("calibrate: PingConfig.Timeout is %v: want the time an echo may take, seconds on a loaded machine (DefaultPingConfig has %v)", c.Timeout, DefaultPingConfig().Timeout)
	}
	if c.Budget < 0 {
		return fmt.Errorf("calibrate: PingConfig.Budget is %v: want 0 (no limit) or more", c.Budget)
	}
	distinct := map[int]bool{}
	for _, s := range c.Sizes {
		if s < 0 || s > MaxPingSize {
			return fmt.Errorf("calibrate: PingConfig.Sizes has %d bytes: want sizes from 0 to %s", s, sizeText(MaxPingSize))
		}
		distinct[s] = true
	}
	if len(distinct) < 2 {
		return fmt.Errorf("calibrate: PingConfig.Sizes %v: want two different sizes at least, to tell the start-up cost from the cost per byte", c.Sizes)
	}
	return nil
}

// PingPong measures what a message costs between two nodes on this
// machine: it starts two transports on loopback, as cluster nodes start
// theirs, and bounces messages of each size between them, the sizes taking
// turns in every round so that a stretch of load falls on all alike. A
// message's one-way time is half its round trip; the line fitted to the
// sizes' medians (Fit) gives Startup and PerByte. Both transports are
// closed, and their goroutines gone, when PingPong returns.
func PingPong(ctx context.Context, cfg PingConfig) (Link, error) {
	if err := cfg.check(); err != nil {
		return Link{}, err
	}
	if ctx.Err() != nil {
		return Link{}, cancelled(ctx, "the transport's ping-pong")
	}
	p, err := newPair(cfg.Key)
	if err != nil {
		return Link{}, fmt.Errorf("calibration failed: cannot start a task transport on 127.0.0.1: %w: %s", err, skipLink)
	}
	defer p.close()

	rng := rand.New(rand.NewChaCha8([32]byte{'t', 's', 'y', 's'}))
	payloads := make([][]byte, len(cfg.Sizes))
	for i, n := range cfg.Sizes {
		payloads[i] = make([]byte, n)
		for j := range payloads[i] {
			payloads[i][j] = byte(rng.Uint32())
		}
	}
	run := func(i int, timeout time.Duration) (time.Duration, error) {
		return p.round(ctx, payloads[i], timeout)
	}
	// Unmeasured: the first exchange sets up both connections, and the
	// first of each size grows the buffers it needs.
	if _, err := run(0, setupRounds*cfg.Timeout); err != nil {
		return Link{}, err
	}
	for i := range payloads {
		if _, err := run(i, cfg.Timeout); err != nil {
			return Link{}, err
		}
	}

	rtts := make([][]time.Duration, len(payloads))
	least := min(cfg.Rounds, minRounds)
	start := time.Now()
	for r := 0; r < cfg.Rounds; r++ {
		if r >= least && cfg.Budget > 0 && time.Since(start) >= cfg.Budget {
			break
		}
		// Each round starts at the next size, so that what a message
		// leaves behind (a large one's buffers to recycle) slows every
		// size alike rather than always the one after it.
		for k := range payloads {
			i := (r + k) % len(payloads)
			rtt, err := run(i, cfg.Timeout)
			if err != nil {
				return Link{}, err
			}
			rtts[i] = append(rtts[i], rtt)
		}
	}

	link := Link{Keyed: len(cfg.Key) > 0}
	points := make([]Point, len(payloads))
	for i, rs := range rtts {
		s := Size{Bytes: len(payloads[i]), Rounds: len(rs), Median: median.Of(rs) / 2, Min: minOf(rs) / 2}
		link.Sizes = append(link.Sizes, s)
		points[i] = Point{Bytes: s.Bytes, OneWay: s.Median}
	}
	link.Startup, link.PerByte, err = Fit(points)
	if err != nil {
		return Link{}, err
	}
	return link, nil
}

// minOf is the least of ds, which are not empty.
func minOf(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds[1:] {
		m = min(m, d)
	}
	return m
}
