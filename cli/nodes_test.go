package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/tsys"
)

func TestLocalNodeLimit(t *testing.T) {
	for _, c := range []struct {
		cpus int
		mem  uint64
		want int
	}{
		{2, 24 << 30, 64},  // this project's machine: the cores bound it
		{64, 8 << 30, 128}, // many cores, little memory: the memory does
		{1, 100 << 20, 2},  // never below 2: a cluster of two always starts
		{4, 0, 128},        // memory unknown: the cores alone
	} {
		if got := localNodeLimit(c.cpus, c.mem); got != c.want {
			t.Errorf("%d cores, %d MiB: %d, want %d", c.cpus, c.mem>>20, got, c.want)
		}
	}
}

// nopJob is a Job that is never run: the command line refuses it first.
type nopJob struct{}

func (nopJob) Params() map[string]any { return nil }
func (nopJob) Run(context.Context, *tsys.Runtime) (Result, tsys.Stats, error) {
	return Result{}, tsys.Stats{}, nil
}

// nopOptions make a nopJob, and have no flags.
type nopOptions struct{}

func (nopOptions) Flags(*flag.FlagSet) {}
func (nopOptions) Job() (Job, error)   { return nopJob{}, nil }

// TestTooManyNodesRefused: --nodes past what the machine can hold is bad
// usage, with what it can hold and what to do instead, before any
// process starts.
func TestTooManyNodesRefused(t *testing.T) {
	cfg := Config{Name: "prog", Programs: []Program{{Name: "p", Options: func() Options { return nopOptions{} }}}}
	var errb bytes.Buffer
	code := Exec(cfg, []string{"run", "p", "--nodes", "100000"}, io.Discard, &errb)
	for _, want := range []string{"--nodes 100000: this machine can run about", "prog node --join HOST:PORT"} {
		if code != 2 || !strings.Contains(errb.String(), want) {
			t.Errorf("exit %d, %q; want 2 and %q", code, errb.String(), want)
		}
	}
}
