package cli

import (
	"bytes"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestTooManyWorkersRefused: --workers past what a node of this machine
// can hold is bad usage for run and node alike, before anything starts,
// saying the bound and what to do instead; the bound itself and the
// default are accepted.
func TestTooManyWorkersRefused(t *testing.T) {
	cfg := Config{Name: "prog", Programs: []Program{{Name: "p", Options: func() Options { return nopOptions{} }}}}
	limit := workerLimit(max(runtime.NumCPU(), runtime.GOMAXPROCS(0)))
	for _, args := range [][]string{
		{"run", "p", "--workers", "100000"},
		{"run", "p", "--workers", strconv.Itoa(limit + 1)},
		{"node", "--bind", "127.0.0.1:0", "--workers", "100000"},
	} {
		var errb bytes.Buffer
		code := Exec(cfg, args, io.Discard, &errb)
		for _, want := range []string{"--workers " + args[len(args)-1] + ": a node of this machine runs at most " + strconv.Itoa(limit), "prog node --join HOST:PORT"} {
			if code != 2 || !strings.Contains(errb.String(), want) {
				t.Errorf("%v: exit %d, %q; want 2 and %q", args, code, errb.String(), want)
			}
		}
	}
	c := &command{name: "prog"}
	for _, ok := range []int{1, runtime.GOMAXPROCS(0), limit} {
		if err := c.checkWorkers(ok); err != nil {
			t.Errorf("--workers %d refused: %v", ok, err)
		}
	}
	if err := c.checkWorkers(0); err == nil || !strings.Contains(err.Error(), "want at least 1") {
		t.Errorf("--workers 0: %v", err)
	}
}

// TestWorkerLimit: the bound grows with the cores, and a machine that
// says it has none still runs some workers.
func TestWorkerLimit(t *testing.T) {
	for cpus, want := range map[int]int{0: 256, 1: 256, 2: 512, 64: 16384} {
		if got := workerLimit(cpus); got != want {
			t.Errorf("%d cores: %d, want %d", cpus, got, want)
		}
	}
}
