package cli_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/clitest"
	"github.com/tsys-go/tsys/tsys"
)

// statusSeen is closed by TestLiveStatusOnATerminal once the status
// shows, which ends the job of the waiter task that waits for it.
var (
	statusSeen     = make(chan struct{})
	statusSeenOnce sync.Once
)

// waiter reports 3 of 10 units of progress, then waits for the status to
// show (ms 0), bounded by a minute, or ms milliseconds.
var waiter = tsys.Register("cli_test.waiter", func(c *tsys.Ctx, ms int) int {
	c.AddProgress(3, 10)
	if ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return 0
	}
	select {
	case <-statusSeen:
	case <-time.After(time.Minute):
	}
	return 0
})

type waiterOptions struct{ ms int }

func (o *waiterOptions) Flags(fs *flag.FlagSet) {
	fs.IntVar(&o.ms, "ms", 0, "wait this long (0: until the status shows)")
}
func (o *waiterOptions) Job() (cli.Job, error) {
	return cli.TaskJob(waiter, o.ms, map[string]any{"ms": o.ms}), nil
}

var waiterConfig = cli.Config{Name: "waiter", Programs: []cli.Program{{
	Name: "wait", Summary: "waits", Options: func() cli.Options { return new(waiterOptions) },
}}}

// readTerminal collects what is written to the terminal whose control
// side is control, closing seen once it contains want. It returns what
// was read once the terminal is closed.
func readTerminal(control *os.File, want string, seen func()) func() string {
	var all bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := control.Read(buf)
			all.Write(buf[:n])
			if strings.Contains(all.String(), want) {
				seen()
			}
			if err != nil { // EIO once the terminal side is closed
				return
			}
		}
	}()
	return func() string { <-done; return all.String() }
}

// TestLiveStatusOnATerminal: on a terminal, a job that runs past a second
// shows its status line on stderr, with its progress, and erases it; the
// report on stdout has none of it.
func TestLiveStatusOnATerminal(t *testing.T) {
	control, term := clitest.PTY(t)
	read := readTerminal(control, "3/10", func() { statusSeenOnce.Do(func() { close(statusSeen) }) })
	var out bytes.Buffer
	code := cli.Exec(waiterConfig, []string{"run", "wait", "--workers", "2"}, &out, term)
	term.Close()
	got := read()
	if code != 0 {
		t.Fatalf("exit %d; stderr %q", code, got)
	}
	select {
	case <-statusSeen:
	default:
		t.Fatalf("no status line with the job's progress in a minute; the terminal had %q", got)
	}
	for _, want := range []string{"tsys: ", "1 node", "tasks/s", "steals/s", "[======", "30% 3/10", "\r\x1b[K"} {
		if !strings.Contains(got, want) {
			t.Errorf("the terminal has no %q: %q", want, got)
		}
	}
	if strings.Contains(out.String(), "\r") || strings.Contains(out.String(), "tasks/s") {
		t.Errorf("the status went to stdout: %q", out.String())
	}
}

// TestNoLiveStatus: no status with --json or --quiet, nor when stderr is
// no terminal, though the job runs long enough to show one (2.5 s: the
// first line would be at 1 s, or 2 s for a tick that came early).
func TestNoLiveStatus(t *testing.T) {
	for name, args := range map[string][]string{"--json": {"--json"}, "--quiet": {"--quiet"}, "a pipe": nil} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			control, term := clitest.PTY(t)
			var stderr io.Writer = term
			var pipe bytes.Buffer
			if args == nil {
				stderr = &pipe
			}
			read := readTerminal(control, "\x00never", func() {})
			var out bytes.Buffer
			code := cli.Exec(waiterConfig, append([]string{"run", "wait", "-ms", "2500", "--workers", "2"}, args...), &out, stderr)
			term.Close()
			got := read() + pipe.String()
			if code != 0 {
				t.Fatalf("exit %d; stderr %q", code, got)
			}
			if strings.Contains(got, "tasks/s") || strings.Contains(got, "\r") {
				t.Errorf("a status line on stderr: %q", got)
			}
			if name == "--json" && !strings.HasPrefix(out.String(), "{") {
				t.Errorf("--json wrote %q", out.String())
			}
		})
	}
}
