package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/tsys-go/tsys/internal/cliflags"
	"github.com/tsys-go/tsys/internal/hog"
)

// loadFlags are the flags that make a node slower or loaded: pinned to one
// CPU, with a competing hog beside its workers (Siegell's scenarios).
type loadFlags struct {
	cpu int    // pin the process to this CPU; -1: do not pin
	hog string // hog spec (hog.Parse), empty for none
}

// start pins the process and starts the hog; stop ends the hog. The hog is
// a process of its own (tsys hog) on the same CPU: it competes for the core
// as another user's program would, and its CPU time is not the node's.
func (l loadFlags) start(executable func() (string, error)) (stop func(), err error) {
	stop = func() {}
	if l.cpu >= 0 {
		if err := hog.Pin(l.cpu); err != nil {
			return stop, usageError{msg: err.Error()}
		}
	}
	if l.hog == "" {
		return stop, nil
	}
	if _, err := hog.Parse(l.hog); err != nil {
		return stop, usageError{msg: "--hog: " + err.Error()}
	}
	exe, err := executable()
	if err != nil {
		return stop, fmt.Errorf("finding this program to start a hog: %w", err)
	}
	cmd := exec.Command(exe, "hog", "--cpu", strconv.Itoa(l.cpu), l.hog)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return stop, fmt.Errorf("starting a hog: %w", err)
	}
	return func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}, nil
}

// hogCommand runs `tsys hog [--cpu N] F[:ON/OFF]`: competing CPU load, until
// it is interrupted.
func (c *command) hogCommand(args []string, stderr io.Writer) error {
	fs := NewFlagSet(c.name+" hog", stderr)
	cpu := fs.Int("cpu", -1, "pin the hog to this CPU (Linux; -1: do not pin)")
	cliflags.SetUsage(fs, c.name+" hog [--cpu N] F[:ON/OFF]", "Burns F of a core (0.5: half), or F for ON then nothing for OFF (0.5:2s/2s), until interrupted.")
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return Usagef("hog: want one load, F or F:ON/OFF, e.g. 0.5 or 0.5:2s/2s")
	}
	spec, err := hog.Parse(fs.Arg(0))
	if err != nil {
		return usageError{msg: err.Error()}
	}
	if *cpu >= 0 {
		if err := hog.Pin(*cpu); err != nil {
			return usageError{msg: err.Error()}
		}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	hog.Run(ctx, spec)
	return nil
}

// nodeLoads reads tsys run's --hog I=SPEC[,I=SPEC...] for n nodes (node 0 is
// the process that runs the root task, 1 to n-1 those it starts), and --pin
// (node i on CPU i mod the CPUs there are).
func nodeLoads(hogs string, pin bool, n int) ([]loadFlags, error) {
	loads := make([]loadFlags, n)
	for i := range loads {
		loads[i].cpu = -1
		if pin {
			loads[i].cpu = i % runtime.NumCPU()
		}
	}
	if hogs == "" {
		return loads, nil
	}
	for _, item := range strings.Split(hogs, ",") {
		idx, spec, ok := strings.Cut(item, "=")
		i, err := strconv.Atoi(idx)
		if !ok || err != nil || i < 0 || i >= n {
			return nil, Usagef("--hog %q: want NODE=SPEC with NODE from 0 (this process) to %d, e.g. 1=0.5 or 1=0.5:2s/2s", item, n-1)
		}
		if _, err := hog.Parse(spec); err != nil {
			return nil, Usagef("--hog: %v", err)
		}
		loads[i].hog = spec
	}
	return loads, nil
}

// args gives the flags that make a started node process carry l.
func (l loadFlags) args() []string {
	var a []string
	if l.cpu >= 0 {
		a = append(a, "--cpu", strconv.Itoa(l.cpu))
	}
	if l.hog != "" {
		a = append(a, "--hog", l.hog)
	}
	return a
}
