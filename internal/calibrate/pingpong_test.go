package calibrate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPingPongOnLoopback(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		name := "plain"
		if keyed {
			name = "keyed"
		}
		t.Run(name, func(t *testing.T) {
			checkNoLeak(t)
			cfg := DefaultPingConfig()
			if keyed {
				cfg.Key = []byte("0123456789abcdef0123456789abcdef")
			}
			link, err := PingPong(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("startup %v, per byte %v, sizes %+v", link.Startup, link.PerByte, link.Sizes)
			if link.Startup <= 0 || link.Startup >= time.Second {
				t.Errorf("Startup %v: want more than 0 and less than 1s", link.Startup)
			}
			if link.PerByte < 0 || link.PerByte.Of(1<<20) >= 10*time.Second {
				t.Errorf("PerByte %v: want 0 or more, and a MiB in less than 10s", link.PerByte)
			}
			if link.Keyed != keyed || len(link.Sizes) != len(cfg.Sizes) {
				t.Errorf("Keyed %v, %d sizes: want %v, %d", link.Keyed, len(link.Sizes), keyed, len(cfg.Sizes))
			}
			for i, s := range link.Sizes {
				if s.Bytes != cfg.Sizes[i] || s.Rounds < min(cfg.Rounds, minRounds) || s.Median <= 0 || s.Min > s.Median {
					t.Errorf("size %d: %+v", i, s)
				}
			}
		})
	}
}

func TestPingPongRefusesABadConfig(t *testing.T) {
	good := DefaultPingConfig()
	for _, c := range []struct {
		name string
		edit func(*PingConfig)
		want string
	}{
		{"zero rounds", func(c *PingConfig) { c.Rounds = 0 }, "Rounds is 0"},
		{"negative size", func(c *PingConfig) { c.Sizes = []int{0, -1} }, "Sizes has -1 bytes"},
		{"huge size", func(c *PingConfig) { c.Sizes = []int{0, MaxPingSize + 1} }, "want sizes from 0 to 16 MiB"},
		{"one size", func(c *PingConfig) { c.Sizes = []int{64, 64} }, "two different sizes"},
		{"no timeout", func(c *PingConfig) { c.Timeout = 0 }, "Timeout is 0s"},
		{"negative budget", func(c *PingConfig) { c.Budget = -time.Second }, "Budget is -1s"},
	} {
		cfg := good
		cfg.Sizes = append([]int(nil), good.Sizes...)
		c.edit(&cfg)
		_, err := PingPong(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

func TestPingPongCancelled(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := PingPong(ctx, DefaultPingConfig())
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "ping-pong") {
		t.Errorf("got %v, want a cancellation that names the ping-pong", err)
	}
}

// TestPingPongCancelledMidway cancels while the rounds run: PingPong
// returns the cancellation, and leaves nothing running.
func TestPingPongCancelledMidway(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	cfg := DefaultPingConfig()
	cfg.Budget = 0 // every round: far longer than the wait below
	cfg.Rounds = 1 << 30
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := PingPong(ctx, cfg)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "ping-pong") {
		t.Errorf("got %v, want a cancellation that names the ping-pong", err)
	}
}

// TestUnansweredMessage: a message nobody echoes fails its round with an
// error that says which message, how long it waited and what to do. The
// echoing side is closed, so no load on the machine can make the echo
// come; the short timeout only shortens the test.
func TestUnansweredMessage(t *testing.T) {
	checkNoLeak(t)
	p, err := newPair(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	p.b.Close()
	_, err = p.round(context.Background(), make([]byte, 16<<10), 200*time.Millisecond)
	if err == nil {
		t.Fatal("an echo came from a closed transport")
	}
	for _, want := range []string{"calibration failed: no echo of a 16 KiB message within 200ms over loopback", "is the machine overloaded? retry, or pass --startup and --per-byte to skip calibration"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to say %q", err, want)
		}
	}
	t.Log(err)
}
