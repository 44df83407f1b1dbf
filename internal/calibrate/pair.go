package calibrate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/net/transport"
)

// The two message types of the ping-pong; the transport leaves their
// meaning to its user.
const (
	msgPing = transport.FirstUserType + iota
	msgPong
)

// pair is two transports in this process, as two nodes on one machine
// have: a sends pings, b echoes each back as a pong over its own
// connection, as a node answers another (replies travel on the
// answerer's connection, see package transport).
type pair struct {
	a, b *transport.Transport
	echo chan int // the body length of each pong a received
	log  *lastLine
}

// newPair starts both transports on 127.0.0.1, port 0, as cluster.Start
// configures its own: the default framing, compression threshold and
// frame limit, and key when there is one.
func newPair(key []byte) (*pair, error) {
	p := &pair{echo: make(chan int, 1), log: &lastLine{}}
	logger := slog.New(p.log)
	var b atomic.Pointer[transport.Transport]
	a, err := transport.Listen(transport.Config{Name: "calibrate-a", Bind: "127.0.0.1:0", Key: key, Logger: logger},
		func(_ string, m *transport.Message) {
			if m.Type != msgPong {
				return
			}
			select {
			case p.echo <- len(m.Body):
			default: // an echo nobody waits for: the round it answers failed
			}
		})
	if err != nil {
		return nil, err
	}
	aAddr := a.Addr()
	bt, err := transport.Listen(transport.Config{Name: "calibrate-b", Bind: "127.0.0.1:0", Key: key, Logger: logger},
		func(_ string, m *transport.Message) {
			if m.Type != msgPing {
				return
			}
			if t := b.Load(); t != nil {
				// A failure is logged by the transport, and the missing
				// echo fails the round.
				_ = t.Send(aAddr, &transport.Message{Type: msgPong, Body: m.Body})
			}
		})
	if err != nil {
		a.Close()
		return nil, err
	}
	b.Store(bt)
	p.a, p.b = a, bt
	return p, nil
}

// close closes both transports, which wait for their goroutines.
func (p *pair) close() {
	p.a.Close()
	p.b.Close()
}

// errNoEcho is exchange's timeout; the caller says which message it was.
type errNoEcho struct{ lastLog string }

func (e errNoEcho) Error() string { return "no echo" }

// exchange sends body from a to b and waits for its echo, at most timeout
// and while ctx lasts; it returns the round trip.
func (p *pair) exchange(ctx context.Context, body []byte, timeout time.Duration) (time.Duration, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	t0 := time.Now()
	if err := p.a.Send(p.b.Addr(), &transport.Message{Type: msgPing, Body: body}); err != nil {
		return 0, err
	}
	select {
	case n := <-p.echo:
		rtt := time.Since(t0)
		if n != len(body) {
			return 0, fmt.Errorf("the echo of a %s message has %s", sizeText(len(body)), sizeText(n))
		}
		return rtt, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-t.C:
		return 0, errNoEcho{lastLog: p.log.last()}
	}
}

// round is one timed round trip of body, with the error a user reads when
// it fails: what was not echoed, in how long, why if the transport said,
// and what to do.
func (p *pair) round(ctx context.Context, body []byte, timeout time.Duration) (time.Duration, error) {
	rtt, err := p.exchange(ctx, body, timeout)
	var noEcho errNoEcho
	switch {
	case err == nil:
		return rtt, nil
	case ctx.Err() != nil:
		return 0, cancelled(ctx, fmt.Sprintf("the transport's ping-pong (a %s message)", sizeText(len(body))))
	case errors.As(err, &noEcho):
		why := ""
		if noEcho.lastLog != "" {
			why = " (the transport last logged: " + noEcho.lastLog + ")"
		}
		return 0, overloaded(skipLink, "no echo of a %s message within %v over loopback%s", sizeText(len(body)), timeout, why)
	}
	return 0, fmt.Errorf("calibration failed: a %s message over loopback: %w: %s", sizeText(len(body)), err, skipLink)
}

// lastLine is a slog.Handler that keeps the last line the transports
// logged at Info or above: a dial or handshake failure is only logged, and
// it is the cause a timed-out echo should name.
type lastLine struct {
	mu   sync.Mutex
	line string
}

func (h *lastLine) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *lastLine) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	h.mu.Lock()
	h.line = b.String()
	h.mu.Unlock()
	return nil
}

func (h *lastLine) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *lastLine) WithGroup(string) slog.Handler      { return h }

func (h *lastLine) last() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.line
}
